"""The OpenEnv server as a service: one session cap, HTTP sessions, idle timeouts, a token.

openenv-core 0.3's own HTTP `/reset` and `/step` are stateless: each builds a fresh environment,
acts once and closes it. So `/step` never has a reset episode (it always answered 500), and
`/reset` ignores the session cap (24 live sandboxes were started under a cap of 16). Here the
HTTP routes keep sessions in the SDK's own session table, the one its WebSockets use (through
`HTTPEnvServer`'s session methods, which openenv-core 0.3 keeps private): one cap counts both,
`/reset` without a session id opens one and answers its id (`X-Session-Id` header and
`session_id` field), `/step`, `/state` and `/close` name it. An idle HTTP session is
closed by the SDK's reaper; an idle WebSocket (no message for the timeout) is closed by
`IdleWebSockets`, which the SDK has no setting for. `TokenGate` asks for a bearer token on
everything but the descriptive routes (`/health`, `/metadata`, `/schema`, the OpenAPI
documents), and `check_exposure` refuses to listen beyond loopback without one.

Live sandboxes come from the process's one live pool (`AppContext.live_pool`), shared with the
Playground, the Rollouts page and the Gymnasium env: each new session is claimed by its
client (`client_owner`), so a remote client holds at most its per-person share, and a reset
the pool refuses answers 503 (WebSocket: an error message) saying how long to wait.
"""

from __future__ import annotations

import asyncio
import contextvars
import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from ipaddress import ip_address
from typing import Any, Protocol, runtime_checkable

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from openenv.core.env_server import Environment
from openenv.core.env_server.exceptions import SessionCapacityError
from openenv.core.env_server.http_server import HTTPEnvServer
from openenv.core.env_server.serialization import deserialize_action, serialize_observation
from openenv.core.env_server.types import ConcurrencyConfig
from pydantic import ValidationError

from backend.errors import AWPError, BadInputError

SESSION_HEADER = "X-Session-Id"
OPEN_PATHS = frozenset(
    {"/health", "/metadata", "/schema", "/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc"}
)
"""Routes that describe the server and touch no session: open without a token, so that
`openenv validate --url` and health checks keep working."""
IDLE_CLOSE_CODE = 1001
"""WebSocket close code for a session closed for idling ("going away")."""
POLICY_CLOSE_CODE = 1008
"""WebSocket close code for a missing or wrong token ("policy violation")."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CLIENT: contextvars.ContextVar[str | None] = contextvars.ContextVar("awp_env_client", default=None)
"""Whose share of the live pool the request's new session uses (set by `ClientOwners`)."""


@runtime_checkable
class Claimable(Protocol):
    """An environment whose live sandboxes count against one client's share of the pool."""

    def claim(self, owner: str | None) -> None:
        """Count this session's sandboxes against `owner` (None: the operator's)."""
        ...


def client_owner(scope: Scope) -> str | None:
    """The pool owner a connection's sessions count against.

    A client on this machine is the operator (a local trainer), bound by the pool's capacity
    only; any other address is one person, with `AWP_LIVE_PER_PERSON` places at most.
    """
    client = scope.get("client")
    host = client[0] if client else ""
    return None if not host or is_loopback(host) else f"openenv:{host}"


def check_exposure(host: str, token: str) -> None:
    """Refuse to serve beyond loopback without a token.

    Raises:
        BadInputError: `host` is not a loopback address and no token is set.
    """
    if token or is_loopback(host):
        return
    raise BadInputError(
        f"Listening on {host} makes the environment reachable from other machines; set "
        "AWP_ENV_TOKEN to a secret that clients send as 'Authorization: Bearer <token>', or "
        "listen on 127.0.0.1."
    )


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (`localhost`, 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


def build_service(
    factory: Callable[[], Environment],
    action_cls: type,
    observation_cls: type,
    max_sessions: int,
    idle_timeout_s: float,
    token: str = "",
) -> ASGIApp:
    """The OpenEnv app with session-keeping HTTP routes, wrapped in the idle and token gates.

    Args:
        factory: builds one session's environment.
        action_cls: the environment's action model.
        observation_cls: its observation model.
        max_sessions: sessions open at once, HTTP and WebSocket together.
        idle_timeout_s: a session that receives nothing this long is closed.
        token: the bearer token clients must send; empty for none.
    """
    server = HTTPEnvServer(
        factory,
        action_cls,
        observation_cls,
        concurrency_config=ConcurrencyConfig(
            max_concurrent_envs=max_sessions, session_timeout=idle_timeout_s
        ),
    )
    claim_sessions(server)
    app = FastAPI(title="OpenEnv Environment HTTP API", version="1.0.0")
    ours = HttpSessions(server, action_cls).register(app)
    server.register_routes(app)
    # The SDK registers its stateless /reset, /step and /state too; ours answer those paths.
    app.router.routes = [
        route
        for route in app.router.routes
        if not (
            isinstance(route, APIRoute)
            and route.path in ours
            and route.endpoint not in ours[route.path]
        )
    ]
    gated: ASGIApp = ClientOwners(IdleWebSockets(app, idle_timeout_s))
    return TokenGate(gated, token) if token else gated


def claim_sessions(server: HTTPEnvServer) -> None:
    """Make every session the SDK opens (HTTP or WebSocket) claimed by its request's client.

    The SDK builds a session's environment in an executor thread, where the request's context
    is gone, so the claim is made once the session exists, still in the request's task.
    """
    create = server._create_session

    async def create_claimed() -> tuple[str, Environment]:
        session_id, env = await create()
        if isinstance(env, Claimable):
            env.claim(CLIENT.get())
        return session_id, env

    server._create_session = create_claimed


class HttpSessions:
    """`/reset`, `/step`, `/state` and `/close` over the SDK's session table.

    Args:
        server: the SDK server whose sessions (and cap) the WebSockets use too.
        action_cls: the action model `/step` bodies are read into.
    """

    def __init__(self, server: HTTPEnvServer, action_cls: type) -> None:
        self.server = server
        self.action_cls = action_cls

    def register(self, app: FastAPI) -> dict[str, set[Callable[..., Any]]]:
        """Add the routes; returns each path's endpoints (so the SDK's can be dropped)."""
        routes: dict[str, set[Callable[..., Any]]] = {}
        for path, method, endpoint in (
            ("/reset", "POST", self.reset),
            ("/step", "POST", self.step),
            ("/state", "GET", self.state),
            ("/close", "POST", self.close),
        ):
            app.add_api_route(path, endpoint, methods=[method], tags=["Environment Control"])
            routes.setdefault(path, set()).add(endpoint)
        return routes

    async def reset(self, request: Request) -> JSONResponse:
        """Start an episode: in the session named, else in a new one (counted by the cap)."""
        body = await _body(request)
        session_id = request.headers.get(SESSION_HEADER) or body.pop("session_id", None)
        opened = False
        if session_id:
            env = self._env(session_id)
            if isinstance(env, JSONResponse):
                return env
        else:
            try:
                session_id, env = await self.server._create_session()
            except SessionCapacityError as exc:
                return _refusal(503, f"{exc}; close a session or wait for one to idle out.")
            opened = True
        allowed = {"seed", "episode_id", "index"}
        options = {key: value for key, value in body.items() if key in allowed}
        try:
            observation = await self.server._run_in_session_executor(
                session_id, env.reset, **options
            )
        except AWPError as exc:  # the live pool is full: the message says how long to wait
            if opened:
                await self.server._destroy_session(str(session_id))
            return _refusal(503, str(exc))
        self.server._update_session_activity(session_id)
        return _observation(session_id, observation)

    async def step(self, request: Request) -> JSONResponse:
        """Take one action in the session named (`X-Session-Id` or `session_id`)."""
        body = await _body(request)
        env = self._env(request.headers.get(SESSION_HEADER) or body.get("session_id"))
        if isinstance(env, JSONResponse):
            return env
        session_id = request.headers.get(SESSION_HEADER) or str(body.get("session_id"))
        data = body.get("action")
        if not isinstance(data, dict):
            return _refusal(422, 'The body needs "action": an object of the action\'s fields.')
        try:
            action = deserialize_action(data, self.action_cls)
        except ValidationError as exc:
            return JSONResponse({"detail": exc.errors(include_url=False)}, status_code=422)
        observation = await env.step_async(action)
        self.server._update_session_activity(session_id, increment_step=True)
        return _observation(session_id, observation)

    async def state(self, request: Request) -> JSONResponse:
        """The named session's episode state."""
        env = self._env(request.headers.get(SESSION_HEADER))
        if isinstance(env, JSONResponse):
            return env
        return JSONResponse(env.state.model_dump())

    async def close(self, request: Request) -> JSONResponse:
        """End the named session and free its place under the cap."""
        session_id = request.headers.get(SESSION_HEADER) or (await _body(request)).get("session_id")
        env = self._env(session_id)
        if isinstance(env, JSONResponse):
            return env
        await self.server._destroy_session(str(session_id))
        return JSONResponse({"session_id": session_id, "closed": True})

    def _env(self, session_id: Any) -> Environment | JSONResponse:
        if not session_id:
            return _refusal(
                400, f"Name the session: POST /reset opens one and answers its {SESSION_HEADER}."
            )
        env = self.server._sessions.get(str(session_id))
        if env is None:
            return _refusal(404, f"No open session {session_id}: it was closed or idled out.")
        return env


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _observation(session_id: str, observation: Any) -> JSONResponse:
    payload = {**serialize_observation(observation), "session_id": session_id}
    return JSONResponse(payload, headers={SESSION_HEADER: session_id})


def _refusal(status: int, message: str) -> JSONResponse:
    return JSONResponse({"detail": message}, status_code=status)


class IdleWebSockets:
    """Close a WebSocket whose client sent nothing for `timeout_s` (a session held by nobody).

    The time counts only while the server waits for the client: a long step does not count.
    A close the app sends after the client has gone is dropped: openenv-core 0.3 closes every
    socket in a `finally`, which after each normal disconnect logged "Exception in ASGI
    application" with a traceback (849 of them, 3.5 MB of log, for 1,050 sessions).
    """

    def __init__(self, app: ASGIApp, timeout_s: float) -> None:
        self.app = app
        self.timeout_s = timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass HTTP through; give a WebSocket's app a `receive` that times out."""
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return

        gone = False

        async def watched() -> Message:
            nonlocal gone
            try:
                message = await asyncio.wait_for(receive(), self.timeout_s)
            except TimeoutError:
                await send(
                    {"type": "websocket.close", "code": IDLE_CLOSE_CODE, "reason": "idle timeout"}
                )
                message = {"type": "websocket.disconnect", "code": IDLE_CLOSE_CODE}
            gone = gone or message["type"] == "websocket.disconnect"
            return message

        async def sending(message: Message) -> None:
            if gone and message["type"] == "websocket.close":
                return
            try:
                await send(message)
            except OSError:
                if message["type"] != "websocket.close":
                    raise

        await self.app(scope, watched, sending)


class ClientOwners:
    """Note each request's client (`CLIENT`), whose share of the live pool its sessions use."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Set `CLIENT` for the request's task, then pass it on."""
        CLIENT.set(client_owner(scope))
        await self.app(scope, receive, send)


class TokenGate:
    """Answer 401 (HTTP) or close with 1008 (WebSocket) unless the request carries the token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Let through open paths and requests with the token; refuse the rest."""
        if scope["type"] not in ("http", "websocket") or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        if hmac.compare_digest(given, self.expected):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": POLICY_CLOSE_CODE})
            return
        refusal = _refusal(401, "Send 'Authorization: Bearer <token>' (AWP_ENV_TOKEN).")
        refusal.headers["WWW-Authenticate"] = "Bearer"
        await refusal(scope, receive, send)
