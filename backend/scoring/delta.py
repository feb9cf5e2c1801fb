"""Delta similarity of texts: what the prediction changed, against what reality changed.

Scoring the predicted text against the real one rewards copying: a terminal screen keeps most of
its lines after a command, so the persistence baseline (repeat the previous screen) already gets
most of a plain similarity. Here each observation is first reduced to its change from the
previous one: the lines it ADDS (lines not aligned with a line of the previous text, in order)
and the lines it REMOVES (lines of the previous text it no longer holds). Then

    value = max(0, 2 * M - wrong) / (|added_pred| + |added_real| + |removal disagreement|)
    wrong = (|added_pred| - M) + |removal disagreement|

(`base.change_agreement`), where sizes are characters plus one newline per line, M is the
patience-matched characters of the two added texts and the removal disagreement is the size of
the lines one side removed and the other kept (multisets, both being lines of the previous text).
Agreeing removals earn nothing: every prediction that does not copy the previous text "removes"
it, so crediting that would pay an empty prediction for the old output of every command.

Version 2 closes the ways junk earned credit under version 1 (measured on the bundled items,
benchmarks/bench_adversarial.py): prose, a truncated screen or one with random typos scored above
persistence on 38 of 56 terminal and 20 of 28 swe steps.

- Partial credit inside a changed region only above `REGION_FLOOR`: two unrelated texts share
  characters (spaces, common letters, a prompt prefix), so a sentence of prose used to earn a few
  percent against any output. And partial credit only when the predicted lines share more with
  the new lines than the old lines they replaced do: a line that changed in place (`M r.txt` to
  `1 0 r.txt`) shares characters with its old self, and so does any garbled copy of it, which
  used to earn for characters persistence also had.
- What the prediction gets wrong is charged against what it gets right, not only diluted: a
  prediction that drops lines the real screen kept, keeps lines it dropped, or invents lines
  must get more right than that to score at all (`base.change_agreement`).
- An unknown previous text counts as empty (every line is an addition), as in tree change F1;
  version 1 fell back to the plain similarity, with its coincidental character credit.

Consequences, by construction:

- Persistence adds and removes nothing: 0 whenever reality changed anything.
- Reality changed nothing (the new text equals the previous one, line for line): the real change
  is empty, so a prediction that also changes nothing scores 1 and any other scores 0.
- Lines are aligned with patience diff, so a screen that scrolled counts only the lines that left
  the top and the lines that arrived at the bottom, not every shifted line.
- With a mask (terminal screens), a line whose only change is a volatile token (a clock, a PID)
  is kept, not changed; masks run only on the lines the raw alignment left unmatched, at most
  `MASK_LINE_LIMIT` of them, so a huge rewritten log cannot make the metric slow.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from backend.scoring import patience
from backend.scoring.base import change_agreement

REGION_FLOOR = 0.5
"""A replaced region of added lines earns partial credit only when at least half of it matches.
Unrelated text shares a little by coincidence (a sentence of prose against the bundled terminal
and swe lines: 0.07 in the median, 0.25 at most); a line a model got nearly right (a changed
digit, a different path) shares far more than half."""
MASK_LINE_LIMIT = 5_000
"""Most changed lines masked per pair; past it lines are compared as they are (and flagged)."""

Mask = Callable[[str], str]
Unmatched = tuple[list[int], list[int]]


@dataclass(frozen=True)
class LineDelta:
    """How a text differs from the previous one.

    Attributes:
        added: the lines that are new, in order (masked when a mask was given).
        removed: the lines of the previous text that are gone, by content.
        gone: the same lines in order, masked when a mask was given (compared with `added`).
    """

    added: list[str]
    removed: Counter[str]
    gone: list[str]


def split_lines(text: str) -> list[str]:
    r"""Lines split on `\n` only; the empty text has none (not one empty line)."""
    return text.split("\n") if text else []


def size(lines: list[str] | Counter[str]) -> int:
    """Characters plus one newline per line (the unit of `patience.similarity`)."""
    if isinstance(lines, Counter):
        return sum((len(line) + 1) * count for line, count in lines.items())
    return sum(len(line) + 1 for line in lines)


def unmatched(before: list[str], after: list[str]) -> Unmatched:
    """Indices of the lines of `before` and of `after` that the patience alignment leaves over."""
    pairs = patience.align(before, after)
    kept_before, kept_after = {i for i, _ in pairs}, {j for _, j in pairs}
    return (
        [i for i in range(len(before)) if i not in kept_before],
        [j for j in range(len(after)) if j not in kept_after],
    )


def line_delta(
    before: list[str], after: list[str], left: Unmatched, mask: Mask | None = None
) -> LineDelta:
    """The lines `after` adds to and removes from `before`, given the alignment's leftovers.

    With a mask, the leftovers are aligned again after masking; pairs found then differ only in
    volatile tokens and count as kept.
    """
    gone, new = left
    if mask is None:
        old = [before[i] for i in gone]
        return LineDelta([after[j] for j in new], Counter(old), old)
    added = [mask(after[j]) for j in new]
    masked_old = [mask(before[i]) for i in gone]
    second = patience.align(masked_old, added) if gone and added else []
    kept_gone, kept_new = {i for i, _ in second}, {j for _, j in second}
    return LineDelta(
        [line for j, line in enumerate(added) if j not in kept_new],
        Counter(before[i] for k, i in enumerate(gone) if k not in kept_gone),
        [line for k, line in enumerate(masked_old) if k not in kept_gone],
    )


def cached(mask: Mask) -> Mask:
    """`mask` computed once per distinct line: the three texts of a pair share most lines."""
    memo: dict[str, str] = {}

    def masked(line: str) -> str:
        if line not in memo:
            memo[line] = mask(line)
        return memo[line]

    return masked


def delta_similarity(
    previous: str, predicted: str, reference: str, mask: Mask | None = None
) -> tuple[float, dict[str, Any]]:
    """Delta similarity of `predicted` against `reference`, both relative to `previous`.

    The texts are compared as given: normalise whitespace first.

    Returns:
        (value in [0, 1], details with line counts per side and the parts of the formula).
    """
    masking = mask is not None
    before, pred_lines, real_lines = (split_lines(t) for t in (previous, predicted, reference))
    pred_left, real_left = unmatched(before, pred_lines), unmatched(before, real_lines)
    changed_lines = sum(len(part) for part in (*pred_left, *real_left))
    if mask is not None:
        mask = cached(mask) if changed_lines <= MASK_LINE_LIMIT else None
    pred = line_delta(before, pred_lines, pred_left, mask)
    real = line_delta(before, real_lines, real_left, mask)
    added_pred, added_real = size(pred.added), size(real.added)
    matched, partial, old_partial = 0, 0, 0
    if pred.added and real.added:
        real_text = "\n".join(real.added)
        _, counts = patience.similarity("\n".join(pred.added), real_text, REGION_FLOOR)
        partial = counts["partial_chars"]
        if partial and real.gone:
            _, old = patience.similarity("\n".join(real.gone), real_text, REGION_FLOOR)
            old_partial = old["partial_chars"]
        earned = partial if partial > old_partial else 0
        matched = min(counts["matched_chars"] - partial + earned, added_pred, added_real)
    disagreement = size(pred.removed - real.removed) + size(real.removed - pred.removed)
    details: dict[str, Any] = {
        "previous_known": True,
        "real_changed": bool(real.added or real.removed),
        "lines_added_predicted": len(pred.added),
        "lines_added_real": len(real.added),
        "lines_removed_predicted": sum(pred.removed.values()),
        "lines_removed_real": sum(real.removed.values()),
        "added_similarity": (
            2 * matched / (added_pred + added_real) if added_pred + added_real else None
        ),
        "removal_disagreement_chars": disagreement,
        "matched_chars": matched,
        "partial_chars": partial,
        "old_lines_partial_chars": old_partial,
    }
    if masking:
        details["volatile_masking"] = (
            "on" if mask is not None else "skipped: too many changed lines"
        )
    return change_agreement(matched, added_pred, added_real, disagreement), details
