"""Progress per annotator and domain, and agreement where two annotators judged one prediction."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from itertools import combinations, groupby
from typing import Any

from sqlalchemy import Integer, case, func, select

from backend.verdicts import Verdict
from storage.db import SessionFactory, session_scope
from storage.models import (
    RATING_DIMENSIONS,
    AnnotationRow,
    AnnotatorRow,
    PredictionRow,
    SessionRow,
    StepRow,
)


@dataclass(frozen=True)
class AnnotatorProgress:
    """What one annotator has done in one domain."""

    annotator: str
    domain: str
    annotated: int
    accepted: int
    rejected: int
    cannot_tell: int
    last_at: datetime | None


@dataclass(frozen=True)
class DomainProgress:
    """How much of one domain's predictions is annotated (once, and by two or more people)."""

    domain: str
    predictions: int
    annotated: int
    annotated_twice: int


@dataclass(frozen=True)
class DimensionAgreement:
    """Pairwise agreement on one rubric dimension (pairs where both rated it)."""

    pairs: int
    exact: float
    within_one: float
    mean_abs_diff: float


@dataclass(frozen=True)
class Agreement:
    """Pairwise agreement over predictions judged by two or more annotators.

    Attributes:
        predictions: predictions with at least two annotations.
        pairs: annotator pairs compared.
        verdict: share of pairs (both accept or reject, not cannot tell) with the same verdict;
            None without any.
        same_correction: share of pairs that wrote the same corrected observation.
        dimensions: per rubric dimension.

    """

    predictions: int
    pairs: int
    verdict: float | None
    same_correction: float | None
    dimensions: dict[str, DimensionAgreement]


@dataclass
class _Tally:
    predictions: int = 0
    pairs: int = 0
    verdict_pairs: int = 0
    verdict_same: int = 0
    same_correction: int = 0
    diffs: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))

    def add(self, a: Any, b: Any) -> None:
        self.pairs += 1
        if Verdict.CANNOT_TELL not in (a.verdict, b.verdict):
            self.verdict_pairs += 1
            self.verdict_same += a.verdict == b.verdict
        self.same_correction += a.corrected_observation.strip() == b.corrected_observation.strip()
        for dim in RATING_DIMENSIONS:
            x, y = getattr(a, f"rating_{dim}"), getattr(b, f"rating_{dim}")
            if x is not None and y is not None:
                self.diffs[dim].append(abs(x - y))

    def result(self) -> Agreement:
        dims = {
            dim: DimensionAgreement(
                pairs=len(d),
                exact=sum(v == 0 for v in d) / len(d),
                within_one=sum(v <= 1 for v in d) / len(d),
                mean_abs_diff=sum(d) / len(d),
            )
            for dim, d in self.diffs.items()
            if d
        }
        return Agreement(
            predictions=self.predictions,
            pairs=self.pairs,
            verdict=self.verdict_same / self.verdict_pairs if self.verdict_pairs else None,
            same_correction=self.same_correction / self.pairs if self.pairs else None,
            dimensions=dims,
        )


def annotator_progress(
    factory: SessionFactory, annotator: str | None = None
) -> list[AnnotatorProgress]:
    """Annotations per annotator and domain, with counts per verdict."""
    query = (
        select(
            AnnotatorRow.name,
            SessionRow.domain,
            func.count(AnnotationRow.id),
            *(
                func.sum(case((AnnotationRow.verdict == verdict.value, 1), else_=0))
                for verdict in Verdict
            ),
            func.max(AnnotationRow.updated_at),
        )
        .join(AnnotationRow, AnnotationRow.annotator_id == AnnotatorRow.id)
        .join(PredictionRow, PredictionRow.id == AnnotationRow.prediction_id)
        .join(StepRow, StepRow.id == PredictionRow.step_id)
        .join(SessionRow, SessionRow.id == StepRow.session_id)
        .group_by(AnnotatorRow.name, SessionRow.domain)
        .order_by(AnnotatorRow.name, SessionRow.domain)
    )
    if annotator is not None:
        query = query.where(AnnotatorRow.name == annotator)
    with session_scope(factory) as session:
        return [
            AnnotatorProgress(name, domain, n, int(acc or 0), int(rej or 0), int(unsure or 0), last)
            for name, domain, n, acc, rej, unsure, last in session.execute(query)
        ]


def domain_progress(factory: SessionFactory) -> list[DomainProgress]:
    """Predictions per domain and how many of them are annotated once and twice or more."""
    counts = (
        select(AnnotationRow.prediction_id, func.count(AnnotationRow.id).label("n"))
        .group_by(AnnotationRow.prediction_id)
        .subquery()
    )
    n = func.coalesce(counts.c.n, 0)
    query = (
        select(
            SessionRow.domain,
            func.count(PredictionRow.id),
            func.sum(case((n >= 1, 1), else_=0), type_=Integer),
            func.sum(case((n >= 2, 1), else_=0), type_=Integer),
        )
        .select_from(PredictionRow)
        .join(StepRow, StepRow.id == PredictionRow.step_id)
        .join(SessionRow, SessionRow.id == StepRow.session_id)
        .outerjoin(counts, counts.c.prediction_id == PredictionRow.id)
        .group_by(SessionRow.domain)
        .order_by(SessionRow.domain)
    )
    with session_scope(factory) as session:
        return [
            DomainProgress(domain, total, int(once or 0), int(twice or 0))
            for domain, total, once, twice in session.execute(query)
        ]


def agreement(
    factory: SessionFactory, annotator: str | None = None
) -> tuple[Agreement, dict[str, Agreement]]:
    """Pairwise inter-annotator agreement, overall and per domain.

    Args:
        factory: the session factory.
        annotator: only pairs that include this annotator (their agreement with the others).

    Returns:
        (overall, domain -> agreement).

    """
    shared = (
        select(AnnotationRow.prediction_id)
        .group_by(AnnotationRow.prediction_id)
        .having(func.count(AnnotationRow.id) >= 2)
    )
    query = (
        select(SessionRow.domain, AnnotationRow, AnnotatorRow.name)
        .join(AnnotatorRow, AnnotatorRow.id == AnnotationRow.annotator_id)
        .join(PredictionRow, PredictionRow.id == AnnotationRow.prediction_id)
        .join(StepRow, StepRow.id == PredictionRow.step_id)
        .join(SessionRow, SessionRow.id == StepRow.session_id)
        .where(AnnotationRow.prediction_id.in_(shared))
        .order_by(AnnotationRow.prediction_id, AnnotationRow.id)
    )
    overall = _Tally()
    by_domain: dict[str, _Tally] = defaultdict(_Tally)
    with session_scope(factory) as session:
        rows = session.execute(query.execution_options(yield_per=500))
        for _, group in groupby(rows, key=lambda r: r[1].prediction_id):
            members = list(group)
            domain = members[0][0]
            pairs = [
                (a, b)
                for (_, a, name_a), (_, b, name_b) in combinations(members, 2)
                if annotator is None or annotator in (name_a, name_b)
            ]
            if not pairs:
                continue
            for tally in (overall, by_domain[domain]):
                tally.predictions += 1
                for a, b in pairs:
                    tally.add(a, b)
    return overall.result(), {domain: t.result() for domain, t in sorted(by_domain.items())}
