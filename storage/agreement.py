"""Judge verdicts joined with human ratings, aggregated in SQL for the agreement report.

A judge's verdict is stored per prediction as `judge.<dimension>` scores (1-5), whether it came
from `awp bench`, `awp judge` or a "Judge this" button; people's ratings are the annotations'
`rating_<dimension>` columns. Every query here groups, so the report reads counts, not rows:
(judge score, person's rating) pairs, ratings per prediction for
Krippendorff's alpha (people-versus-people pairs are derived from those), verdicts side by side,
and the largest gaps.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any

from sqlalchemy import Float, Integer, Numeric, case, cast, func, select
from sqlalchemy.sql import ColumnElement, Select

from backend.compare.agreement import SCALE
from backend.compare.agreement_report import (
    DIMENSIONS,
    JUDGE_ACCEPTS_AT,
    AgreementReport,
    Disagreement,
    ItemCounts,
    RatingCounts,
    VerdictCount,
    agreement_report,
)
from backend.compare.confidence_report import ConfidenceCount, confidence_agreement
from backend.confidence import GOOD_HEADLINE
from backend.domains.base import all_domains
from backend.scoring import headline_metric
from backend.scoring.base import METRICS
from backend.scoring.judge import JUDGE_PREFIX
from backend.types import EXACT_ANSWERERS
from backend.verdicts import Verdict
from storage.db import SessionFactory, session_scope
from storage.models import (
    AnnotationRow,
    AnnotatorRow,
    PredictionRow,
    ScoreRow,
    SessionRow,
    StepRow,
)

WORST = 20


def _judged(dimension: str | None) -> Any:
    """Per prediction, the judge's score on `dimension` (rounded), or its total when None."""
    name = (
        ScoreRow.name.like(f"{JUDGE_PREFIX}%")
        if dimension is None
        else (ScoreRow.name == f"{JUDGE_PREFIX}{dimension}")
    )
    value: ColumnElement[Any] = func.avg(ScoreRow.value)
    if dimension is not None:
        value = cast(func.round(value), Integer)
    return (
        select(ScoreRow.prediction_id.label("prediction_id"), value.label("value"))
        .where(name)
        .group_by(ScoreRow.prediction_id)
        .subquery()
    )


def _with_domain(query: Any, prediction_id: Any) -> Any:
    return (
        query.join(PredictionRow, PredictionRow.id == prediction_id)
        .join(StepRow, StepRow.id == PredictionRow.step_id)
        .join(SessionRow, SessionRow.id == StepRow.session_id)
    )


def _pairs(session: Any, query: Select[Any], dimension: str) -> list[RatingCounts]:
    columns: dict[str, tuple[list[int], list[int], list[int]]] = defaultdict(lambda: ([], [], []))
    for domain, first, second, count in session.execute(query):
        x, y, n = columns[domain]
        x.append(int(first))
        y.append(int(second))
        n.append(int(count))
    return [RatingCounts(domain, dimension, *cols) for domain, cols in sorted(columns.items())]


def judge_pairs(session: Any) -> list[RatingCounts]:
    """(judge score, person's rating) counts per domain and dimension."""
    found = []
    for dimension in DIMENSIONS:
        judged = _judged(dimension)
        rating = getattr(AnnotationRow, f"rating_{dimension}")
        query = _with_domain(
            select(SessionRow.domain, judged.c.value, rating, func.count()).join(
                AnnotationRow, AnnotationRow.prediction_id == judged.c.prediction_id
            ),
            judged.c.prediction_id,
        )
        query = query.where(rating.is_not(None)).group_by(SessionRow.domain, judged.c.value, rating)
        found += _pairs(session, query, dimension)
    return found


def item_counts(session: Any) -> list[ItemCounts]:
    """Per domain and dimension, the ratings of each prediction rated twice or more.

    One GROUP BY per prediction with a count column per (dimension, rating): people-versus-
    people pairs and Krippendorff's alpha are both computed from these counts.
    """
    shared = (
        select(AnnotationRow.prediction_id)
        .group_by(AnnotationRow.prediction_id)
        .having(func.count(AnnotationRow.id) >= 2)
    )
    columns = [
        func.sum(case((getattr(AnnotationRow, f"rating_{dim}") == value, 1), else_=0))
        for dim in DIMENSIONS
        for value in SCALE
    ]
    query = _with_domain(select(SessionRow.domain, *columns), AnnotationRow.prediction_id)
    query = query.where(AnnotationRow.prediction_id.in_(shared)).group_by(
        SessionRow.domain, AnnotationRow.prediction_id
    )
    rows: dict[tuple[str, str], list[list[int]]] = defaultdict(list)
    width = len(SCALE)
    for domain, *counts in session.execute(query):
        for index, dim in enumerate(DIMENSIONS):
            cells = [int(c or 0) for c in counts[index * width : (index + 1) * width]]
            if sum(cells) >= 2:
                rows[(domain, dim)].append(cells)
    return [ItemCounts(domain, dim, found) for (domain, dim), found in sorted(rows.items())]


def verdict_counts(session: Any) -> list[VerdictCount]:
    """(judge verdict, person's verdict) counts per domain."""
    total = _judged(None)
    judge = case((total.c.value >= JUDGE_ACCEPTS_AT, "accept"), else_="reject")
    query = _with_domain(
        select(SessionRow.domain, judge, AnnotationRow.verdict, func.count()).join(
            AnnotationRow, AnnotationRow.prediction_id == total.c.prediction_id
        ),
        total.c.prediction_id,
    ).group_by(SessionRow.domain, judge, AnnotationRow.verdict)
    return [VerdictCount(d, j, h, int(n)) for d, j, h, n in session.execute(query)]


def worst_disagreements(session: Any, limit: int = WORST) -> list[Disagreement]:
    """The (prediction, person) pairs whose mean rating is furthest from the judge's total."""
    total = _judged(None)
    ratings = [getattr(AnnotationRow, f"rating_{d}") for d in DIMENSIONS]
    mean = sum((cast(r, Float) for r in ratings[1:]), cast(ratings[0], Float)) / len(ratings)
    gap = func.abs(total.c.value - mean)
    query = _with_domain(
        select(
            AnnotationRow.prediction_id,
            AnnotatorRow.name,
            SessionRow.domain,
            PredictionRow.engine,
            total.c.value,
            mean,
            AnnotationRow.verdict,
        )
        .join(AnnotationRow, AnnotationRow.prediction_id == total.c.prediction_id)
        .join(AnnotatorRow, AnnotatorRow.id == AnnotationRow.annotator_id),
        total.c.prediction_id,
    )
    query = query.where(ratings[0].is_not(None)).order_by(gap.desc(), AnnotationRow.id)
    return [
        Disagreement(int(p), name, domain, engine, float(j), float(h), verdict)
        for p, name, domain, engine, j, h, verdict in session.execute(query.limit(limit))
    ]


def confidence_verdicts(session: Any) -> list[ConfidenceCount]:
    """(domain, rounded confidence, accepted) counts over people's accept/reject verdicts."""
    rounded = func.round(cast(PredictionRow.confidence, Numeric), 3)
    accepted = AnnotationRow.verdict == Verdict.ACCEPT.value
    query = (
        _with_domain(
            select(SessionRow.domain, rounded, accepted, func.count()),
            AnnotationRow.prediction_id,
        )
        .where(
            PredictionRow.confidence.is_not(None),
            AnnotationRow.verdict.in_([Verdict.ACCEPT.value, Verdict.REJECT.value]),
        )
        .group_by(SessionRow.domain, rounded, accepted)
    )
    return [ConfidenceCount(d, float(c), bool(g), int(n)) for d, c, g, n in session.execute(query)]


def confidence_headlines(session: Any) -> list[ConfidenceCount]:
    """(domain, rounded confidence, headline >= 0.5) counts, each domain its current headline."""
    rounded = func.round(cast(PredictionRow.confidence, Numeric), 3)
    good = ScoreRow.value >= GOOD_HEADLINE
    found = []
    for domain in all_domains():
        name = headline_metric(domain.name)
        query = (
            _with_domain(
                select(SessionRow.domain, rounded, good, func.count()), ScoreRow.prediction_id
            )
            .where(
                PredictionRow.confidence.is_not(None),
                PredictionRow.engine.not_in(EXACT_ANSWERERS),
                SessionRow.domain == domain.name,
                ScoreRow.name == name,
                ScoreRow.version == str(METRICS.get(name).version),
            )
            .group_by(SessionRow.domain, rounded, good)
        )
        rows = session.execute(query)
        found += [ConfidenceCount(d, float(c), bool(g), int(n)) for d, c, g, n in rows]
    return found


def agreement(factory: SessionFactory, worst: int = WORST) -> AgreementReport:
    """The judge-versus-people and people-versus-people report over everything stored."""
    with session_scope(factory) as session:
        report = agreement_report(
            judge_pairs(session),
            item_counts(session),
            verdict_counts(session),
            worst_disagreements(session, worst),
        )
        confidence = confidence_agreement(
            confidence_verdicts(session), confidence_headlines(session)
        )
        return replace(report, confidence=confidence)
