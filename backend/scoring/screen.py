"""Terminal screen metrics: text metrics after masking volatile tokens, raw values kept beside.

A world model cannot know the PID a shell will assign, the clock time, the random suffix of a
`mktemp` path or how long a command took; the judges treat such runtime metadata as "plausible
if well-formed". Masking them in both texts scores what the model can know, while the raw
(unmasked) value in the details still shows how close the literal text was.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from backend.scoring.base import ObservationPair, metric
from backend.scoring.text import (
    delta_of,
    exact,
    line_prf,
    normalise_whitespace,
    similar,
)

_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
VOLATILE: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "<DATETIME>",
        re.compile(
            r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
        ),
    ),
    ("<DATE>", re.compile(rf"\b{_MONTH}[ \t]+\d{{1,2}}[ \t]+(?:\d{{2}}:\d{{2}}|\d{{4}})\b")),
    ("<TIME>", re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b")),
    ("<EPOCH>", re.compile(r"\b1[5-9]\d{8}(?:\.\d+)?\b")),
    ("<TMP>", re.compile(r"/tmp/[\w.\-]*[A-Za-z0-9]{6,}[\w.\-]*|\btmp[a-z0-9_]{6,}\b")),
    ("<PID>", re.compile(r"(?i)(?<=\bpid)[ =:]*\d+|(?<=^\[\d\] )\d+|(?<=process )\d+", re.M)),
    (
        "<DURATION>",
        re.compile(
            r"\b\d+m\d+(?:\.\d+)?s\b|\b\d+(?:\.\d+)?\s?(?:ms|us|µs|ns|s|sec|secs|seconds)\b"
        ),
    ),
    ("<ADDR>", re.compile(r"\b0x[0-9a-fA-F]{6,}\b")),
    ("<HASH>", re.compile(r"\b[0-9a-f]{12,64}\b")),
)
"""(placeholder, pattern) in application order: date-times before the times inside them."""


def mask_unshared(text: str, other: str, counts: Counter[str]) -> str:
    """Mask the lines of `text` that do not occur verbatim in `other`.

    A line both screens share is equal whatever its tokens, so only the differing lines need
    masking: on a 10,000-line log that is a few percent of the regex work. Deciding by set
    membership (not by an alignment) keeps the metrics that claim symmetry symmetric.
    """
    shared = set(other.split("\n"))
    out = []
    for line in text.split("\n"):
        if line not in shared:
            line, found = mask_volatile(line)
            counts.update(found)
        out.append(line)
    return "\n".join(out)


def mask_volatile(text: str) -> tuple[str, Counter[str]]:
    """Replace volatile tokens by placeholders.

    Returns:
        (masked text, how many tokens of each placeholder were replaced).
    """
    counts: Counter[str] = Counter()
    for placeholder, pattern in VOLATILE:
        text, n = pattern.subn(placeholder, text)
        if n:
            counts[placeholder] += n
    return text, counts


Comparer = Callable[[str, str], tuple[float, dict[str, Any]]]


def _screen_metric(pair: ObservationPair, compare: Comparer) -> tuple[float, dict[str, Any]]:
    predicted = normalise_whitespace(pair.predicted)
    reference = normalise_whitespace(pair.reference)
    pred_counts: Counter[str] = Counter()
    ref_counts: Counter[str] = Counter()
    masked_pred = mask_unshared(predicted, reference, pred_counts)
    masked_ref = mask_unshared(reference, predicted, ref_counts)
    value, details = compare(masked_pred, masked_ref)
    raw_value, _ = compare(predicted, reference)
    return value, {
        **details,
        "raw_value": raw_value,
        "masked_predicted": dict(pred_counts),
        "masked_reference": dict(ref_counts),
    }


@metric("screen_exact", 1, "Exact match after masking volatile tokens.", symmetric=True)
def screen_exact(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """Exact match of the screens with timestamps, PIDs, temp paths and durations masked."""
    return _screen_metric(pair, exact)


@metric("screen_similarity", 1, "Patience similarity after masking volatile tokens.")
def screen_similarity(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """Patience-diff similarity of the masked screens."""
    return _screen_metric(pair, similar)


@metric("screen_line_f1", 1, "Line F1 after masking volatile tokens.", symmetric=True)
def screen_line_f1(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """Line-level F1 of the masked screens."""
    return _screen_metric(pair, line_prf)


def masked_line(line: str) -> str:
    """One line with its volatile tokens masked."""
    return mask_volatile(line)[0]


@metric("screen_delta", 2, "Delta similarity of the screens, volatile tokens masked.")
def screen_delta(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """What the predicted screen changed against what the real screen changed.

    Scrolled lines are aligned, not changed; a line whose only change is a volatile token (a
    clock, a PID) is unchanged. An unknown previous screen counts as empty.
    """
    return delta_of(pair.previous, pair.predicted, pair.reference, masked_line)
