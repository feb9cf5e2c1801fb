"""Who may use the app and with which role: password logins, Hugging Face login, admins.

Read from `AWP_*` variables like every setting (kept here until merged into `Settings`). With no
users configured the app has no login page; people are then "anonymous" with `anonymous_role`.
"""

from __future__ import annotations

import hmac
import os
from typing import Literal

import gradio as gr
from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from ui.users import User

ANONYMOUS = "anonymous"


class AuthSettings(BaseSettings):
    """Login and role settings."""

    model_config = SettingsConfigDict(env_prefix="AWP_", env_file=".env", extra="ignore")

    users: SecretStr = Field(
        default=SecretStr(""),
        description="Password logins as `name:password` pairs separated by commas; empty means "
        "no login page.",
    )
    admins: str = Field(
        default="",
        description="Comma-separated user names with the admin role (export, everyone's progress).",
    )
    anonymous_role: Literal["annotator", "admin"] = Field(
        default="admin",
        description="Role of people who are not logged in: admin suits a personal machine, "
        "annotator a public Space.",
    )
    hf_login: bool | None = Field(
        default=None,
        description="Offer 'Sign in with Hugging Face'; default: on when running in a Space.",
    )

    def credentials(self) -> dict[str, str]:
        """The configured logins, name -> password."""
        pairs = (item.split(":", 1) for item in self.users.get_secret_value().split(","))
        return {name.strip(): secret for name, secret, *_ in (p for p in pairs if len(p) == 2)}

    def admin_names(self) -> set[str]:
        """User names with the admin role."""
        return {name.strip() for name in self.admins.split(",") if name.strip()}

    def offers_hf_login(self) -> bool:
        """Whether to show the Hugging Face login button (Spaces set SPACE_ID)."""
        return self.hf_login if self.hf_login is not None else bool(os.environ.get("SPACE_ID"))


class Auth:
    """Checks passwords and tells who is behind a request.

    Args:
        settings: the auth settings.
    """

    def __init__(self, settings: AuthSettings) -> None:
        self._logins = settings.credentials()
        self._admins = settings.admin_names()
        self._anonymous_admin = settings.anonymous_role == "admin"
        self.hf_login = settings.offers_hf_login()

    @property
    def requires_login(self) -> bool:
        """Whether the app shows a password login page."""
        return bool(self._logins)

    def check(self, username: str, password: str) -> bool:
        """Gradio's login callback; compares in constant time."""
        expected = self._logins.get(username)
        return expected is not None and hmac.compare_digest(expected, password)

    def identify(self, request: gr.Request | None) -> User:
        """The user behind `request`: password login, then Hugging Face login, else anonymous."""
        name = getattr(request, "username", None) if request is not None else None
        if not name and request is not None:
            name = _hf_username(request)
        if name:
            return User(name, is_admin=name in self._admins, logged_in=True)
        return User(ANONYMOUS, is_admin=self._anonymous_admin)


def _hf_username(request: gr.Request) -> str | None:
    """The Hugging Face username stored in the session by Gradio's OAuth routes, if any."""
    try:
        info = request.session.get("oauth_info") or {}
    except (AttributeError, AssertionError):  # no session middleware outside Spaces
        return None
    return (info.get("userinfo") or {}).get("preferred_username")
