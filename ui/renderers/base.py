"""Shared pieces of every renderer: the registry, escaping, size bounds and the safe fallback.

Renderers turn untrusted observation text (recorded or model-written) into HTML that is inserted
into the page. Everything therefore goes through `esc`, and `render` guarantees the two promises
callers rely on: output is bounded in size, and a renderer that fails degrades to escaped text.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable

from backend.registry import Registry

logger = logging.getLogger(__name__)

Renderer = Callable[[str, str | None], str]
"""(observation, previous observation or None) -> HTML fragment."""

RENDERERS: Registry[Renderer] = Registry("renderer")

MAX_CHARS = 200_000
"""Observation characters rendered at most; a 5 MB screen would freeze the browser tab."""


def register(name: str) -> Callable[[Renderer], Renderer]:
    """Register the decorated function as the renderer called `name`."""

    def decorate(fn: Renderer) -> Renderer:
        return RENDERERS.register(name, fn)

    return decorate


def esc(text: str) -> str:
    """Escape text for HTML element content and quoted attribute values."""
    return html.escape(text, quote=True)


def notice(message: str) -> str:
    """Return a visible note shown above a rendering (truncation, parse failure)."""
    return f'<div class="awp-notice">{esc(message)}</div>'


def pre(text: str, css_class: str = "awp-text") -> str:
    """Escaped preformatted text."""
    return f'<pre class="{css_class}">{esc(text)}</pre>'


def fallback(text: str, reason: str) -> str:
    """Escaped plain text with a note saying why the rich view is missing."""
    return notice(reason) + pre(text)


def bound(text: str, limit: int = MAX_CHARS) -> tuple[str, str]:
    """Cut `text` to `limit` characters; returns (text, notice HTML or "")."""
    if len(text) <= limit:
        return text, ""
    message = f"Showing the first {limit:,} of {len(text):,} characters."
    return text[:limit], notice(message)


def render(name: str, text: str | None, previous: str | None = None) -> str:
    """Render an observation with the renderer registered as `name`; never raises.

    Args:
        name: a domain's renderer name; an unknown one falls back to plain text.
        text: the observation; None means no observation is known.
        previous: the observation before this one, so tree renderers can mark changed nodes.

    Returns:
        An HTML fragment wrapped in a `div.awp-obs` element.

    """
    if text is None:
        return '<div class="awp-obs awp-empty">No observation.</div>'
    if not text.strip():
        return '<div class="awp-obs awp-empty">Empty observation.</div>'
    body, cut = bound(text)
    prior = bound(previous)[0] if previous is not None else None
    if name not in RENDERERS:
        inner = fallback(body, f"No renderer called {name!r}; shown as text.")
    else:
        try:
            inner = RENDERERS.get(name)(body, prior)
        except Exception:  # a renderer bug must never take the page down with it
            logger.exception("renderer %s failed", name)
            inner = fallback(body, "This observation could not be displayed richly; shown as text.")
    return f'<div class="awp-obs awp-obs-{esc(name)}">{cut}{inner}</div>'
