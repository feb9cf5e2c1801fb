"""Confidence as a detector of good predictions: AUROC per domain, from grouped counts.

Storage groups (domain, confidence rounded to 3 places, good or not) into counts, so the report
reads counts, not rows, like the rest of the Agreement page. Two notions of good: people's
verdict (accept over reject; "cannot tell" is left out) and the headline metric >= 0.5.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from backend.compare.report import ALL
from backend.confidence import auroc


@dataclass(frozen=True)
class ConfidenceCount:
    """How many predictions of a domain had this confidence and were good (or not)."""

    domain: str
    confidence: float
    good: bool
    count: int


@dataclass(frozen=True)
class ConfidenceAgreement:
    """One domain's (or `all`'s) AUROC of confidence against both notions of good.

    Attributes:
        verdicts: predictions with a confidence and a person's accept or reject.
        verdict_auroc: AUROC against people's accept (None: one class is empty).
        scored: predictions with a confidence and a headline score.
        headline_auroc: AUROC against headline >= 0.5.
    """

    domain: str
    verdicts: int
    verdict_auroc: float | None
    scored: int
    headline_auroc: float | None


def _aurocs(counts: Sequence[ConfidenceCount]) -> dict[str, tuple[int, float | None]]:
    grouped: dict[str, tuple[list[float], list[bool]]] = defaultdict(lambda: ([], []))
    for c in counts:
        for domain in (c.domain, ALL):
            values, labels = grouped[domain]
            values.extend([c.confidence] * c.count)
            labels.extend([c.good] * c.count)
    return {d: (len(v), auroc(v, labels)) for d, (v, labels) in grouped.items()}


def confidence_agreement(
    verdicts: Sequence[ConfidenceCount], headlines: Sequence[ConfidenceCount]
) -> list[ConfidenceAgreement]:
    """Per domain and pooled (`all` first), the AUROC against verdicts and against headlines."""
    by_verdict, by_headline = _aurocs(verdicts), _aurocs(headlines)
    domains = sorted(set(by_verdict) | set(by_headline), key=lambda d: (d != ALL, d))
    return [
        ConfidenceAgreement(
            domain, *by_verdict.get(domain, (0, None)), *by_headline.get(domain, (0, None))
        )
        for domain in domains
    ]
