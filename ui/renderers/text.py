"""Plain text observations (tool output, tracebacks, Markdown pages): escaped and preformatted."""

from __future__ import annotations

from ui.renderers.base import pre, register


@register("text")
def render_text(text: str, previous: str | None = None) -> str:
    """Escaped preformatted text; line breaks and indentation kept."""
    return pre(text)
