"""Does a text of a tree kind read as a tree at all, or as prose a model wrote instead?

The line formats (BrowserGym accessibility-tree text, OSWorld's table) have no syntax that can
fail: their parsers turn any line into a node, so "To create a new file, click OK." becomes a
tree of made-up nodes. These checks look at the shape of the lines instead. Markup and JSON need
no check here: their parsers refuse what is not well-formed.

Nothing here changes how an observation is parsed or scored; callers use it to decide whether
drawing the text as a tree is honest.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from backend.scoring.parsers import detect_format

SAMPLE_LINES = 2_000
"""Lines looked at: enough to judge, bounded so a huge observation is judged quickly."""

_BID_LINE = re.compile(r"\[[^\]\s]{1,40}\]\s+\S")
_NAMED_LINE = re.compile(r"""[A-Za-z][\w-]*\s+(?:'|")""")
_BARE_LINE = re.compile(r"[A-Za-z][\w-]*(?:\s*,\s*[\w-]+(?:=\S*)?)*\s*")


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n", SAMPLE_LINES)[:SAMPLE_LINES] if line.strip()]


def _is_axtree_text(text: str) -> bool:
    """Most lines are `[bid] role 'name', props`, `role 'name'` or a bare role.

    At least one line must carry a bid or a quoted name: a lone word ("Done") is not a tree.
    """
    lines = _lines(text)
    structured = sum(1 for line in lines if _BID_LINE.match(line) or _NAMED_LINE.match(line))
    bare = sum(1 for line in lines if _BARE_LINE.fullmatch(line))
    return structured > 0 and 2 * (structured + bare) >= len(lines)


def _is_table_text(text: str) -> bool:
    """Most lines are tab-separated cells, as OSWorld writes its accessibility table."""
    lines = _lines(text)
    return bool(lines) and 2 * sum(1 for line in lines if "\t" in line) >= len(lines)


_LINE_FORMATS: dict[str, Callable[[str], bool]] = {
    "axtree": _is_axtree_text,
    "osworld_table": _is_table_text,
}


def looks_like_tree(kind: str, text: str) -> bool:
    """Whether `text` of observation kind `kind` is shaped like a tree of its format.

    Markup and JSON always pass (their parsers judge them); line formats pass when most lines
    look like node lines.

    Raises:
        UnknownNameError: `kind` is not a tree kind.
    """
    check = _LINE_FORMATS.get(detect_format(kind, text))
    return check is None or check(text)
