"""JSON observations (tool results): pretty-printed with syntax colours."""

from __future__ import annotations

import json
import re

from ui.renderers.base import esc, fallback, register

_TOKEN = re.compile(
    r'(?P<key>"(?:\\.|[^"\\])*"(?=\s*:))'
    r'|(?P<string>"(?:\\.|[^"\\])*")'
    r"|(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
    r"|(?P<literal>\btrue\b|\bfalse\b|\bnull\b)"
)


def highlight(pretty: str) -> str:
    """Wrap the tokens of pretty-printed JSON in classed spans (all text escaped)."""
    out: list[str] = []
    pos = 0
    for match in _TOKEN.finditer(pretty):
        out.append(esc(pretty[pos : match.start()]))
        out.append(f'<span class="awp-json-{match.lastgroup}">{esc(match.group())}</span>')
        pos = match.end()
    out.append(esc(pretty[pos:]))
    return "".join(out)


@register("json")
def render_json(text: str, previous: str | None = None) -> str:
    """Pretty JSON; text that is not JSON (a tool's plain error message) is shown as text."""
    try:
        value = json.loads(text)
    except ValueError:
        return fallback(text, "Not JSON; shown as plain text.")
    pretty = json.dumps(value, indent=2, ensure_ascii=False)
    return f'<pre class="awp-json">{highlight(pretty)}</pre>'
