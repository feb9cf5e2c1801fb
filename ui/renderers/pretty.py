"""One node or key per line, so a diff of one-line recordings compares lines that mean something.

Android dumps, desktop UIA trees and tool results are recorded as one long line; a line diff of
two of them says "1 line differs" over a wall of wrapped text. Pretty-printing both sides first
makes each changed node or key its own row. Printers are registered by renderer name (the
domain's observation view), keep the input's key and element order, and return the text
unchanged when it is not what they expect (a model's malformed prediction is still diffed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from backend.registry import Registry

Printer = Callable[[str], str]

PRINTERS: Registry[Printer] = Registry("pretty-printer")

INLINE_WIDTH = 72
"""JSON objects and arrays this short stay on one line (a bounding box, a name pair)."""
MAX_INDENT = 40
"""Levels laid out at most; deeper values stay inline, so hostile nesting costs little."""

_TAG_GAP = re.compile(r">\s*<")


def _json_lines(value: Any, indent: int, out: list[str], prefix: str) -> None:
    """Append `value` as lines: short containers inline, long ones one key or item a line."""
    pad = "  " * indent
    compact = json.dumps(value, ensure_ascii=False)
    short = len(compact) + len(pad) <= INLINE_WIDTH
    if not isinstance(value, dict | list) or not value or short or indent >= MAX_INDENT:
        out.append(f"{pad}{prefix}{compact}")
        return
    items = value.items() if isinstance(value, dict) else ((None, item) for item in value)
    out.append(f"{pad}{prefix}{'{' if isinstance(value, dict) else '['}")
    for key, item in items:
        label = "" if key is None else f"{json.dumps(key, ensure_ascii=False)}: "
        _json_lines(item, indent + 1, out, label)
        out[-1] += ","
    out[-1] = out[-1].removesuffix(",")
    out.append(f"{pad}{'}' if isinstance(value, dict) else ']'}")


def pretty_json(text: str) -> str:
    """JSON with one key (or list item) a line and short values inline; other text unchanged."""
    try:
        lines: list[str] = []
        _json_lines(json.loads(text), 0, lines, "")
    except (ValueError, RecursionError):
        return text
    return "\n".join(lines)


def pretty_markup(text: str) -> str:
    """XML with one element a line, indented by depth; text outside tags keeps its place.

    Works on the text, not on a parse, so a malformed prediction is laid out the same way as
    the real dump it is compared with, in one linear pass.
    """
    out: list[str] = []
    depth = 0
    for raw in _TAG_GAP.sub(">\n<", text.strip()).split("\n"):
        line = raw.strip()
        closing = line.startswith("</")
        depth -= closing
        out.append("  " * max(0, min(depth, MAX_INDENT)) + line)
        opens = line.startswith("<") and not line.startswith(("</", "<?", "<!"))
        depth += opens and not line.endswith("/>") and "</" not in line
    return "\n".join(out)


def pretty_tree(text: str) -> str:
    """A tree observation in whichever representation it came: markup, JSON or line text."""
    head = text.lstrip()[:1]
    if head == "<":
        return pretty_markup(text)
    if head in "{[" and head:
        return pretty_json(text)
    return text


PRINTERS.register("json", pretty_json)
PRINTERS.register("android", pretty_tree)
PRINTERS.register("a11y_tree", pretty_tree)


def pretty(kind: str | None, text: str) -> str:
    """`text` pretty-printed for the renderer `kind`; unchanged when `kind` has no printer."""
    if kind is None or kind not in PRINTERS:
        return text
    return PRINTERS.get(kind)(text)
