"""Who is at the browser: a name and a role, worked out by the app's auth layer per request.

People who are not logged in are anonymous. Where their work must be told apart (votes,
annotations, claims, skips), each gets the anonymous name of the identity the server issued them
(`app.identity`); nothing the client sends decides it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import gradio as gr

from backend.errors import AWPError

MAX_BROWSER_KEY = 128


@dataclass(frozen=True)
class User:
    """The person behind a request.

    Attributes:
        name: the login name (password login or Hugging Face username), "anonymous", or
            "anonymous-<id>" for one server-issued anonymous identity.
        is_admin: may export data and see everyone's progress.
        logged_in: whether the name comes from a login rather than a default.
        is_reviewer: their corrections are trusted as reality (`backend.trust`).
    """

    name: str
    is_admin: bool = False
    logged_in: bool = False
    is_reviewer: bool = False

    @property
    def role(self) -> str:
        """The role's name (`backend.trust.ROLES`), stored with every annotation they write."""
        if self.is_admin:
            return "admin"
        return "reviewer" if self.is_reviewer else "annotator"


class AccessDeniedError(AWPError):
    """The user's role does not allow this (exports and everyone's progress are for admins)."""


class Identify(Protocol):
    """Maps a Gradio request to its user.

    Built by `app.auth` from the auth settings.
    """

    def __call__(self, request: gr.Request | None, individual: bool = False) -> User:
        """The user behind `request`; with `individual`, anonymous people get their own name."""
        ...


def browser_key(stored: str | None, request: gr.Request | None) -> str:
    """This browser's key: the one it keeps, else this page's session id (for it to keep).

    A page's first event has no stored key yet; its session id is unique and becomes the key
    the browser keeps from then on, across reloads. It never names the person: a client can
    send any key it likes (`Identify` names them from the server's identity).
    """
    if stored and isinstance(stored, str) and len(stored) <= MAX_BROWSER_KEY:
        return stored
    return getattr(request, "session_hash", None) or ""
