"""Who may use the app and with which role: password logins, Hugging Face login, admins.

The users, admins and roles are fields of `Settings`. With no users configured the app has no
login page; people are then "anonymous" with `anonymous_role`, each browser under its own
anonymous name where work must be kept apart (annotations).
"""

from __future__ import annotations

import hmac
import importlib.util
import logging
import os

import gradio as gr

from app.settings import Settings
from ui.users import ANONYMOUS, User, anonymous_name

logger = logging.getLogger(__name__)


def credentials(settings: Settings) -> dict[str, str]:
    """The configured logins, name -> password."""
    pairs = (item.split(":", 1) for item in settings.users.get_secret_value().split(","))
    return {name.strip(): secret for name, secret, *_ in (p for p in pairs if len(p) == 2)}


def admin_names(settings: Settings) -> set[str]:
    """User names with the admin role."""
    return {name.strip() for name in settings.admins.split(",") if name.strip()}


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
        self._anonymous_admin = settings.anonymous_role == "admin"
        self.hf_login = offers_hf_login(settings)

    @property
    def requires_login(self) -> bool:
        """Whether the app shows a password login page."""
        return bool(self._logins)

    def check(self, username: str, password: str) -> bool:
        """Gradio's login callback; compares in constant time."""
        expected = self._logins.get(username)
        return expected is not None and hmac.compare_digest(expected, password)

    def identify(self, request: gr.Request | None, browser: str | None = None) -> User:
        """The user behind `request`: password login, then Hugging Face login, else anonymous.

        Args:
            request: the Gradio request.
            browser: the browser's key (`ui.users.browser_key`) where anonymous browsers must
                be told apart; an anonymous user is then "anonymous-<id>" for that browser.
        """
        name = getattr(request, "username", None) if request is not None else None
        if not name and request is not None:
            name = _hf_username(request)
        if name:
            return User(name, is_admin=name in self._admins, logged_in=True)
        anonymous = ANONYMOUS if browser is None else anonymous_name(browser)
        return User(anonymous, is_admin=self._anonymous_admin)


def _hf_username(request: gr.Request) -> str | None:
    """The Hugging Face username stored in the session by Gradio's OAuth routes, if any."""
    try:
        info = request.session.get("oauth_info") or {}
    except (AttributeError, AssertionError):  # no session middleware outside Spaces
        return None
    return (info.get("userinfo") or {}).get("preferred_username")
