"""Who may use the app and with which role: password logins, Hugging Face login, admins.

The users, admins, reviewers and roles are fields of `Settings`. With no users configured the
app has no login page; people are then "anonymous" with `anonymous_role`. Where their work
counts per person (votes, ratings, annotations) each is named by the identity the server issued
them (`app.identity`), never by anything the client sends.
"""

from __future__ import annotations

import hmac
import importlib.util
import logging
import os
from functools import cached_property

import gradio as gr

from app.identity import Identities, load_secret
from app.settings import Settings
from backend.trust import ANONYMOUS
from ui.users import User

logger = logging.getLogger(__name__)


def credentials(settings: Settings) -> dict[str, str]:
    """The configured logins, name -> password."""
    pairs = (item.split(":", 1) for item in settings.users.get_secret_value().split(","))
    return {name.strip(): secret for name, secret, *_ in (p for p in pairs if len(p) == 2)}


def admin_names(settings: Settings) -> set[str]:
    """User names with the admin role."""
    return {name.strip() for name in settings.admins.split(",") if name.strip()}


def reviewer_names(settings: Settings) -> set[str]:
    """User names with the reviewer role (their corrections are trusted, `backend.trust`)."""
    return {name.strip() for name in settings.reviewers.split(",") if name.strip()}


def offers_hf_login(settings: Settings) -> bool:
    """Whether to show the Hugging Face login button (Spaces set SPACE_ID).

    Gradio's OAuth needs the `gradio[oauth]` extra (authlib); without it the button is left
    out with a warning rather than stopping the app from starting.
    """
    wanted = (
        settings.hf_login if settings.hf_login is not None else bool(os.environ.get("SPACE_ID"))
    )
    if wanted and importlib.util.find_spec("authlib") is None:
        logger.warning("Hugging Face login needs `pip install 'gradio[oauth]'`; left out.")
        return False
    return wanted


class Auth:
    """Checks passwords and tells who is behind a request.

    Args:
        settings: the process settings (users, admins, anonymous role, HF login).
    """

    def __init__(self, settings: Settings) -> None:
        self._logins = credentials(settings)
        self._admins = admin_names(settings)
        self._reviewers = reviewer_names(settings)
        self._anonymous_admin = settings.anonymous_role == "admin"
        self.hf_login = offers_hf_login(settings)
        self._settings = settings

    @cached_property
    def identities(self) -> Identities:
        """Anonymous identities, signed with the settings' secret (read or made on first use)."""
        settings = self._settings
        trust = settings.trust_proxy
        return Identities(
            load_secret(settings.identity_secret.get_secret_value(), settings.data_dir),
            trust_proxy=trust if trust is not None else bool(os.environ.get("SPACE_ID")),
        )

    @property
    def requires_login(self) -> bool:
        """Whether the app shows a password login page."""
        return bool(self._logins)

    def check(self, username: str, password: str) -> bool:
        """Gradio's login callback; compares in constant time."""
        expected = self._logins.get(username)
        return expected is not None and hmac.compare_digest(expected, password)

    def identify(self, request: gr.Request | None, individual: bool = False) -> User:
        """The user behind `request`: password login, then Hugging Face login, else anonymous.

        Args:
            request: the Gradio request.
            individual: where anonymous people must be told apart (their work counts per
                person): name them "anonymous-<id>" by the identity the server issued them
                (`app.identity`), else all are "anonymous".
        """
        name = getattr(request, "username", None) if request is not None else None
        if not name and request is not None:
            name = _hf_username(request)
        if name:
            return User(
                name,
                is_admin=name in self._admins,
                logged_in=True,
                is_reviewer=name in self._reviewers,
            )
        anonymous = ANONYMOUS
        if individual and request is not None:
            anonymous = f"{ANONYMOUS}-{self.identities.of_request(request)}"
        return User(anonymous, is_admin=self._anonymous_admin)


def _hf_username(request: gr.Request) -> str | None:
    """The Hugging Face username stored in the session by Gradio's OAuth routes, if any."""
    try:
        info = request.session.get("oauth_info") or {}
    except (AttributeError, AssertionError):  # no session middleware outside Spaces
        return None
    return (info.get("userinfo") or {}).get("preferred_username")
