"""Judge verdicts joined with human ratings, aggregated in SQL for the agreement report.

A judge's verdict is stored per prediction as `judge.<dimension>` scores (1-5), whether it came
from `awp bench`, `awp judge` or a "Judge this" button; people's ratings are the annotations'
`rating_<dimension>` columns. Every query here groups, so the report reads counts, not rows:
(judge score, person's rating) pairs, (person, person) pairs, ratings per prediction for
Krippendorff's alpha, verdicts side by side, and the largest gaps.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import Float, Integer, case, cast, func, select
from sqlalchemy.orm import aliased
from sqlalchemy.sql import ColumnElement, Select

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
from backend.scoring.judge import JUDGE_PREFIX
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
    name = ScoreRow.name.like(f"{JUDGE_PREFIX}%") if dimension is None else (
        ScoreRow.name == f"{JUDGE_PREFIX}{dimension}"
    )  # fmt: skip
    value: ColumnElement[Any] = func.avg(ScoreRow.value)
    if dimension is not None:
        value = cast(func.round(value), Integer)
    return (
        select(ScoreRow.prediction_id.label("prediction_id"), value.label("value"))
        .where(name)
        .group_by(ScoreRow.prediction_id)
        .subquery()
    )


def _with_domain(query: Select[Any], prediction_id: Any) -> Select[Any]:
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


def human_pairs(session: Any) -> list[RatingCounts]:
    """(person, person) rating counts per domain and dimension, each pair of people once."""
    first, second = aliased(AnnotationRow), aliased(AnnotationRow)
    found = []
    for dimension in DIMENSIONS:
        x, y = getattr(first, f"rating_{dimension}"), getattr(second, f"rating_{dimension}")
        query = _with_domain(
            select(SessionRow.domain, x, y, func.count())
            .select_from(first)
            .join(
                second,
                (second.prediction_id == first.prediction_id)
                & (second.annotator_id > first.annotator_id),
            ),
            first.prediction_id,
        )
        query = query.where(x.is_not(None), y.is_not(None)).group_by(SessionRow.domain, x, y)
        found += _pairs(session, query, dimension)
    return found


def item_counts(session: Any) -> list[ItemCounts]:
    """Per domain and dimension, the ratings each prediction rated twice or more received."""
    shared = (
        select(AnnotationRow.prediction_id)
        .group_by(AnnotationRow.prediction_id)
        .having(func.count(AnnotationRow.id) >= 2)
    )
    found = []
    for dimension in DIMENSIONS:
        rating = getattr(AnnotationRow, f"rating_{dimension}")
        query = _with_domain(
            select(SessionRow.domain, AnnotationRow.prediction_id, rating, func.count()),
            AnnotationRow.prediction_id,
        )
        query = query.where(rating.is_not(None), AnnotationRow.prediction_id.in_(shared))
        query = query.group_by(SessionRow.domain, AnnotationRow.prediction_id, rating)
        rows: dict[str, dict[int, list[int]]] = defaultdict(dict)
        for domain, prediction_id, value, count in session.execute(query):
            rows[domain].setdefault(prediction_id, [0] * 5)[int(value) - 1] = int(count)
        found += [
            ItemCounts(domain, dimension, list(items.values()))
            for domain, items in sorted(rows.items())
        ]
    return found


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


def agreement(factory: SessionFactory, worst: int = WORST) -> AgreementReport:
    """The judge-versus-people and people-versus-people report over everything stored."""
    with session_scope(factory) as session:
        return agreement_report(
            judge_pairs(session),
            human_pairs(session),
            item_counts(session),
            verdict_counts(session),
            worst_disagreements(session, worst),
        )
