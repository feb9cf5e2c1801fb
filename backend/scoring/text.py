r"""Text metrics (swe, and fallbacks elsewhere): exact match, similarity, delta, line F1.

Whitespace is normalised first: line ends, trailing spaces and runs of blanks differ between
recorders and say nothing about whether the simulated environment got the content right.
Lines are split on `\\n` only, because search results contain U+2028-class separators that
`str.splitlines` would treat as line breaks.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from backend.scoring import patience
from backend.scoring.base import ObservationPair, metric, prf
from backend.scoring.delta import Mask, delta_similarity


def normalise_whitespace(text: str) -> str:
    """CRLF to LF, runs of blanks to one space, lines trimmed, blank lines at both ends dropped."""
    lines = [" ".join(line.split()) for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    start = next((i for i, line in enumerate(lines) if line), len(lines))
    return "\n".join(lines[start:])


def exact(predicted: str, reference: str) -> tuple[float, dict[str, Any]]:
    """1.0 when the normalised texts are equal, else 0.0."""
    return float(predicted == reference), {}


def line_prf(predicted: str, reference: str) -> tuple[float, dict[str, Any]]:
    """F1 over the multisets of non-empty lines (order ignored, duplicates counted)."""
    pred = Counter(line for line in predicted.split("\n") if line)
    ref = Counter(line for line in reference.split("\n") if line)
    matched = sum((pred & ref).values())
    scores = prf(matched, sum(pred.values()), sum(ref.values()))
    return scores["f1"], {**scores, "matched_lines": matched}


def similar(predicted: str, reference: str) -> tuple[float, dict[str, Any]]:
    """Patience-diff similarity (see backend.scoring.patience)."""
    value, details = patience.similarity(predicted, reference)
    return value, dict(details)


@metric("text_exact", 1, "Exact match after whitespace normalisation.", symmetric=True)
def text_exact(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """Exact match of the whitespace-normalised texts."""
    return exact(normalise_whitespace(pair.predicted), normalise_whitespace(pair.reference))


@metric("text_similarity", 1, "Patience-diff similarity of the normalised texts.")
def text_similarity(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """Character-weighted patience-diff similarity of the normalised texts."""
    return similar(normalise_whitespace(pair.predicted), normalise_whitespace(pair.reference))


@metric("line_f1", 1, "F1 over the multisets of normalised lines.", symmetric=True)
def line_f1(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """Line-level precision, recall and F1 of the normalised texts."""
    return line_prf(normalise_whitespace(pair.predicted), normalise_whitespace(pair.reference))


def delta_of(
    previous: str | None, predicted: str, reference: str, mask: Mask | None = None
) -> tuple[float, dict[str, Any]]:
    """Delta similarity (backend.scoring.delta) of the whitespace-normalised texts.

    An unknown previous text counts as empty, so every line is an addition: the whole texts are
    compared, with the same floor on partial credit and the same charge for invented lines.
    """
    value, details = delta_similarity(
        normalise_whitespace(previous or ""),
        normalise_whitespace(predicted),
        normalise_whitespace(reference),
        mask,
    )
    return value, {**details, "previous_known": previous is not None}


@metric("text_delta", 2, "Similarity of the predicted to the real change from the previous text.")
def text_delta(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """Lines added and removed relative to the previous observation, prediction vs reality."""
    return delta_of(pair.previous, pair.predicted, pair.reference)
