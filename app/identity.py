"""Anonymous identities the server issues and signs, so that votes cannot come from made-up names.

A person who is not signed in is known by an id the server derives from their address with a
secret (HMAC), carried in a signed cookie (`awp_id`) so that it survives a change of address. A
client cannot choose its identity: a forged or missing cookie falls back to its address's id, so
one address gives at most one anonymous identity however many sessions or names it tries. Votes,
ratings and annotations are counted per identity, and the database keeps one per item each.

The secret is `AWP_IDENTITY_SECRET`, else a random one written once to `<data dir>/identity.key`
(so identities last across restarts). Behind a reverse proxy (a Space) the address is the last
entry of `X-Forwarded-For`, the one the proxy itself appended; elsewhere it is the peer address,
and the header, which any client can write, is ignored.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE = "awp_id"
"""The cookie that carries a signed anonymous identity."""
ID_LENGTH = 16
"""Hex characters of an anonymous id (64 bits: no collisions among a Space's visitors)."""
COOKIE_MAX_AGE_S = 365 * 24 * 3600
KEY_FILE = "identity.key"


def load_secret(configured: str, data_dir: Path) -> bytes:
    """The signing secret: the configured one, else the data directory's, made on first use."""
    if configured:
        return configured.encode("utf-8")
    path = data_dir / KEY_FILE
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32))
    return path.read_text(encoding="utf-8").strip().encode("utf-8")


class Identities:
    """Issues and checks anonymous identities.

    Args:
        secret: the HMAC key (`load_secret`).
        trust_proxy: take the client address from the proxy's `X-Forwarded-For` entry.
    """

    def __init__(self, secret: bytes, *, trust_proxy: bool = False) -> None:
        self._secret = secret
        self.trust_proxy = trust_proxy

    def _mac(self, text: str) -> str:
        return hmac.new(self._secret, text.encode("utf-8"), hashlib.sha256).hexdigest()

    def address_id(self, address: str) -> str:
        """The anonymous id of a client address (reveals nothing of the address)."""
        return self._mac(f"address:{address}")[:ID_LENGTH]

    def sign(self, anonymous_id: str) -> str:
        """The cookie value carrying `anonymous_id`."""
        return f"{anonymous_id}.{self._mac(f'cookie:{anonymous_id}')}"

    def verify(self, token: str | None) -> str | None:
        """The id a cookie value carries, or None when it is missing or was not signed here."""
        if not token or token.count(".") != 1:
            return None
        anonymous_id, mac = token.split(".")
        if len(anonymous_id) != ID_LENGTH or not hmac.compare_digest(
            mac, self._mac(f"cookie:{anonymous_id}")
        ):
            return None
        return anonymous_id

    def address(self, peer: str | None, forwarded_for: str | None) -> str:
        """The client's address: the proxy's entry when trusted, else the peer address."""
        if self.trust_proxy and forwarded_for:
            return forwarded_for.split(",")[-1].strip()
        return peer or "unknown"

    def of(self, cookies: dict[str, str], peer: str | None, forwarded_for: str | None) -> str:
        """The anonymous id of a request: its signed cookie's, else its address's."""
        return self.verify(cookies.get(COOKIE)) or self.address_id(
            self.address(peer, forwarded_for)
        )

    def of_request(self, request: Any) -> str:
        """The anonymous id behind a Gradio or Starlette request."""
        client = getattr(request, "client", None)
        headers = getattr(request, "headers", None) or {}
        cookies = getattr(request, "cookies", None) or {}
        return self.of(dict(cookies), getattr(client, "host", None), headers.get("x-forwarded-for"))


class IdentityCookie:
    """ASGI middleware: gives every HTTP response without a valid `awp_id` cookie a signed one.

    Args:
        app: the wrapped application.
        identities: signs the id of the request's address.
    """

    def __init__(self, app: ASGIApp, identities: Identities) -> None:
        self.app = app
        self.identities = identities

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on; add the cookie to the response when it came without one."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        jar = SimpleCookie()
        jar.load(headers.get("cookie", ""))
        cookies = {name: morsel.value for name, morsel in jar.items()}
        if self.identities.verify(cookies.get(COOKIE)):
            await self.app(scope, receive, send)
            return
        peer = scope.get("client")
        anonymous_id = self.identities.of(
            cookies, peer[0] if peer else None, headers.get("x-forwarded-for")
        )
        cookie = (
            f"{COOKIE}={self.identities.sign(anonymous_id)}; Path=/; Max-Age={COOKIE_MAX_AGE_S}; "
            "HttpOnly; SameSite=Lax"
        )

        async def with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"set-cookie", cookie.encode())]
            await send(message)

        await self.app(scope, receive, with_cookie)
