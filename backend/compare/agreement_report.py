"""Judge versus people, and people versus people, on the five rubric dimensions.

Storage hands over counts grouped in SQL (the types below): how often the judge gave x where a
person gave y, how many people gave each rating to each prediction (which also gives every pair
of people), verdicts side by side, and the largest gaps. This module computes,
per domain and dimension and pooled over domains (`all`), the figures the Agreement page and
`awp annotations agreement --json` show.

The judge gives scores, not verdicts: it "accepts" a prediction when its total (the mean of its
dimension scores, as the official aggregation has it) is at least `JUDGE_ACCEPTS_AT`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from backend.compare.agreement import PairAgreement, alpha, pair_agreement, people_agreement
from backend.compare.confidence_report import ConfidenceAgreement
from backend.compare.report import ALL

JUDGE_ACCEPTS_AT = 4.0
DIMENSIONS = ("format", "factuality", "consistency", "realism", "quality")


@dataclass(frozen=True)
class RatingCounts:
    """Pairs of ratings of one dimension in one domain: (first, second, how many)."""

    domain: str
    dimension: str
    first: list[int]
    second: list[int]
    counts: list[int]


@dataclass(frozen=True)
class ItemCounts:
    """Per prediction of one domain, how many people gave each rating 1-5 on one dimension."""

    domain: str
    dimension: str
    rows: list[list[int]]


@dataclass(frozen=True)
class VerdictCount:
    """How many (judge verdict, person's verdict) pairs of one domain fall in one cell."""

    domain: str
    judge: str
    human: str
    count: int


@dataclass(frozen=True)
class Disagreement:
    """A prediction the judge and a person scored far apart."""

    prediction_id: int
    annotator: str
    domain: str
    engine: str
    judge_total: float
    human_mean: float
    human_verdict: str

    @property
    def gap(self) -> float:
        """Judge total minus the person's mean rating (both 1-5)."""
        return self.judge_total - self.human_mean


@dataclass(frozen=True)
class DimensionAgreement:
    """Agreement on one dimension in one domain (or `all`).

    Attributes:
        judge_human: the judge against each person who rated the prediction.
        human_human: every pair of people who rated the same prediction.
        alpha: Krippendorff's alpha (ordinal) over all people; None without enough data.
    """

    domain: str
    dimension: str
    judge_human: PairAgreement
    human_human: PairAgreement
    alpha: float | None


@dataclass(frozen=True)
class AgreementReport:
    """Everything the Agreement page shows."""

    dimensions: list[DimensionAgreement]
    confusion: list[VerdictCount]
    worst: list[Disagreement]
    confidence: list[ConfidenceAgreement] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return asdict(self)

    def domains(self) -> list[str]:
        """Domains with figures, `all` first."""
        return sorted({d.domain for d in self.dimensions}, key=lambda d: (d != ALL, d))


def _pooled_pairs(pairs: Sequence[RatingCounts]) -> dict[tuple[str, str], PairAgreement]:
    groups: dict[tuple[str, str], tuple[list[int], list[int], list[int]]] = defaultdict(
        lambda: ([], [], [])
    )
    for p in pairs:
        for domain in (p.domain, ALL):
            first, second, counts = groups[(domain, p.dimension)]
            first += p.first
            second += p.second
            counts += p.counts
    return {key: pair_agreement(*columns) for key, columns in groups.items()}


def _people(
    items: Sequence[ItemCounts],
) -> tuple[dict[tuple[str, str], PairAgreement], dict[tuple[str, str], float | None]]:
    """People against people, and Krippendorff's alpha, per (domain, dimension) and pooled."""
    groups: dict[tuple[str, str], list[list[int]]] = defaultdict(list)
    for item in items:
        groups[(item.domain, item.dimension)] += item.rows
        groups[(ALL, item.dimension)] += item.rows
    pairs = {key: people_agreement(rows) for key, rows in groups.items() if rows}
    return pairs, {key: alpha(rows) if rows else None for key, rows in groups.items()}


def _pooled_verdicts(cells: Sequence[VerdictCount]) -> list[VerdictCount]:
    pooled: dict[tuple[str, str], int] = defaultdict(int)
    for cell in cells:
        pooled[(cell.judge, cell.human)] += cell.count
    every = [VerdictCount(ALL, j, h, n) for (j, h), n in sorted(pooled.items())]
    return every + sorted(cells, key=lambda c: (c.domain, c.judge, c.human))


def agreement_report(
    judge: Sequence[RatingCounts],
    items: Sequence[ItemCounts],
    verdicts: Sequence[VerdictCount],
    worst: Sequence[Disagreement],
) -> AgreementReport:
    """Build the report from counts (each domain's and pooled over domains)."""
    judged = _pooled_pairs(judge)
    paired, alphas = _people(items)
    empty = PairAgreement(0, None, None, None)
    keys = sorted(
        set(judged) | set(paired),
        key=lambda k: (k[0] != ALL, k[0], DIMENSIONS.index(k[1])),
    )
    rows = [
        DimensionAgreement(
            domain=domain,
            dimension=dimension,
            judge_human=judged.get((domain, dimension), empty),
            human_human=paired.get((domain, dimension), empty),
            alpha=alphas.get((domain, dimension)),
        )
        for domain, dimension in keys
    ]
    return AgreementReport(rows, _pooled_verdicts(verdicts), list(worst))
