"""Side-by-side diff of a predicted and a real observation, changed lines highlighted.

Uses the standard library's difflib (patiencediff is GPL and stays inside backend scoring).
Inputs are bounded first: difflib is quadratic in the worst case and observations can be huge.
"""

from __future__ import annotations

import difflib

from ui.renderers.base import bound, esc, notice
from ui.renderers.pretty import pretty

MAX_LINES = 3_000
COLUMNS = (
    '<colgroup><col class="awp-ln-col"><col class="awp-side-col">'
    '<col class="awp-ln-col"><col class="awp-side-col"></colgroup>'
)
MAX_INLINE = 2_000
"""Longest line pair that gets character-level highlighting."""
CONTEXT = 3
"""Unchanged lines kept next to each change; longer unchanged runs fold into one row."""
SHOWN_ROWS = 40
"""Rows shown at once; a longer diff (a junk prediction against a big tree) shows its size and
first changes, and folds the rest behind a click instead of making the page thousands of pixels
tall."""


def _inline(left: str, right: str) -> tuple[str, str]:
    """Return both lines with the changed characters wrapped in `<mark>`."""
    if len(left) + len(right) > MAX_INLINE:
        return esc(left), esc(right)
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    out_left: list[str] = []
    out_right: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        a, b = esc(left[i1:i2]), esc(right[j1:j2])
        if tag == "equal":
            out_left.append(a)
            out_right.append(b)
        else:
            out_left.append(f"<mark>{a}</mark>" if a else "")
            out_right.append(f"<mark>{b}</mark>" if b else "")
    return "".join(out_left), "".join(out_right)


def _row(kind: str, num_left: str, left: str, num_right: str, right: str) -> str:
    """Return one table row; `left`/`right` are already escaped."""
    return (
        f'<tr class="awp-d-{kind}"><td class="awp-ln">{num_left}</td><td class="awp-dl">{left}</td>'
        f'<td class="awp-ln">{num_right}</td><td class="awp-dr">{right}</td></tr>'
    )


def _equal_rows(left: list[str], i1: int, i2: int, j1: int, at_end: bool) -> list[str]:
    """Rows of an unchanged run: a few lines of context beside changes, the rest folded.

    A pretty-printed tree is thousands of lines with a handful of changes; without folding the
    changes drown in identical rows.
    """
    head = CONTEXT if i1 > 0 else 0
    tail = 0 if at_end else CONTEXT
    size = i2 - i1
    if size <= head + tail + CONTEXT:
        head, tail = size, 0
    rows = [
        _row("eq", str(i + 1), esc(left[i]), str(i - i1 + j1 + 1), esc(left[i]))
        for i in [*range(i1, i1 + head), *range(i2 - tail, i2)]
    ]
    if head + tail < size:
        fold = f"⋯ {size - head - tail:,} unchanged lines ⋯"
        rows.insert(head, _row("fold", "", fold, "", fold))
    return rows


def _rows(left: list[str], right: list[str]) -> tuple[list[str], int]:
    """Return the table rows for the two line lists and the number of changed lines."""
    rows: list[str] = []
    changed = 0
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows.extend(_equal_rows(left, i1, i2, j1, i2 == len(left) and j2 == len(right)))
            continue
        changed += max(i2 - i1, j2 - j1)
        for k in range(max(i2 - i1, j2 - j1)):
            i, j = i1 + k, j1 + k
            a = left[i] if i < i2 else None
            b = right[j] if j < j2 else None
            if a is not None and b is not None:
                marked_a, marked_b = _inline(a, b)
                rows.append(_row("chg", str(i + 1), marked_a, str(j + 1), marked_b))
            elif a is not None:
                rows.append(_row("del", str(i + 1), esc(a), "", ""))
            elif b is not None:
                rows.append(_row("add", "", "", str(j + 1), esc(b)))
    return rows, changed


def render_diff(
    predicted: str | None,
    real: str | None,
    left_title: str = "Predicted",
    right_title: str = "Real",
    kind: str | None = None,
) -> str:
    """Return a two-column diff table; say so plainly when a side is missing or both are equal.

    Args:
        predicted: the left side (None: nothing to compare yet).
        real: the right side.
        left_title: heading of the left column.
        right_title: heading of the right column.
        kind: the domain's renderer name; when it has a pretty-printer (`ui.renderers.pretty`)
            both sides are compared one node or key a line. None compares the text as it is.
    """
    if predicted is None or real is None:
        return '<div class="awp-diff awp-empty">Nothing to compare yet.</div>'
    (predicted, cut_left), (real, cut_right) = bound(predicted), bound(real)
    shown_left, shown_right = pretty(kind, predicted), pretty(kind, real)
    laid_out = shown_left != predicted or shown_right != real
    left, right = shown_left.split("\n"), shown_right.split("\n")
    head = cut_left or cut_right
    if len(left) > MAX_LINES or len(right) > MAX_LINES:
        head += notice(f"Comparing the first {MAX_LINES:,} lines of each side.")
        left, right = left[:MAX_LINES], right[:MAX_LINES]
    rows, changed = _rows(left, right)
    summary = (
        "Identical."
        if not changed
        else f"{changed} line{' differs' if changed == 1 else 's differ'}."
    )
    if laid_out:
        summary += " Both sides are laid out one node or key a line."
    heading = (
        f"<thead><tr><th></th><th>{esc(left_title)}</th><th></th><th>{esc(right_title)}</th>"
        "</tr></thead>"
    )
    shown, folded = rows[:SHOWN_ROWS], rows[SHOWN_ROWS:]
    rest = ""
    if folded:
        summary += (
            f" {len(left):,} lines ({len(predicted):,} characters) against {len(right):,} "
            f"({len(real):,} characters); the first {SHOWN_ROWS} rows are shown."
        )
        rest = (
            f'<details class="awp-diff-rest"><summary>Show the other {len(folded):,} rows'
            f'</summary><table class="awp-diff-table">{COLUMNS}<tbody>{"".join(folded)}'
            "</tbody></table></details>"
        )
    return (
        f'<div class="awp-diff">{head}<div class="awp-summary">{summary}</div>'
        f'<table class="awp-diff-table">{COLUMNS}{heading}<tbody>{"".join(shown)}</tbody>'
        f"</table>{rest}</div>"
    )
