"""Who is at the browser: a name and a role, worked out by the app's auth layer per request."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import gradio as gr

from backend.errors import AWPError


@dataclass(frozen=True)
class User:
    """The person behind a request.

    Attributes:
        name: the login name (password login or Hugging Face username), or "anonymous".
        is_admin: may export data and see everyone's progress.
        logged_in: whether the name comes from a login rather than a default.
    """

    name: str
    is_admin: bool = False
    logged_in: bool = False


class AccessDeniedError(AWPError):
    """The user's role does not allow this (exports and everyone's progress are for admins)."""


Identify = Callable[[gr.Request | None], User]
"""Maps a Gradio request to its user; built by `app.auth` from the auth settings."""
