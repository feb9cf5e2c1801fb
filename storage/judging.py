"""Stored predictions as rubric-judge items, so a judge can grade them without regenerating.

`awp judge` grades many (the ones no judge graded yet, by default) and the "Judge this" buttons
one; both read the step's real observation and history through the one history rule and store
the verdict as `judge.<dimension>` scores of the prediction, beside `awp bench`'s.
"""

from __future__ import annotations

from pydantic import ValidationError
from sqlalchemy import exists, select
from sqlalchemy.orm import Session

from backend.errors import BadInputError
from backend.scoring.judge import JUDGE_PREFIX, JudgeItem
from backend.types import Diagnostics
from storage.arena_items import prediction_row, step_context
from storage.db import SessionFactory, session_scope
from storage.models import PredictionRow, ScoreRow, SessionRow, StepRow


def _item(session: Session, prediction_id: int) -> JudgeItem:
    row = prediction_row(session, prediction_id)
    context = step_context(session, row.step)
    if context.real is None:
        raise BadInputError(
            f"Prediction {prediction_id} has no real observation to judge it against: record "
            "the real state first (or annotate it on the Annotate page)."
        )
    try:
        diagnostics = Diagnostics(**row.diagnostics) if row.diagnostics else None
    except ValidationError:
        diagnostics = None
    return JudgeItem(
        domain=context.domain,
        action=context.action,
        predicted=row.observation,
        reference=context.real,
        history=context.history,
        previous=context.previous,
        diagnostics=diagnostics,
    )


def judge_item(factory: SessionFactory, prediction_id: int) -> JudgeItem:
    """One stored prediction as a judge item.

    Raises:
        NotFoundError: no such prediction.
        BadInputError: its step's real observation is unknown.
    """
    with session_scope(factory) as session:
        return _item(session, prediction_id)


def items_to_judge(
    factory: SessionFactory,
    domain: str | None = None,
    engine: str | None = None,
    limit: int | None = None,
    rejudge: bool = False,
) -> list[tuple[int, JudgeItem]]:
    """Stored predictions with a real observation, oldest first, as (prediction id, item).

    Args:
        factory: the session factory.
        domain: only this domain.
        engine: only predictions of this engine.
        limit: at most this many.
        rejudge: also predictions a judge already graded (their scores are replaced).
    """
    query = (
        select(PredictionRow.id)
        .join(StepRow, StepRow.id == PredictionRow.step_id)
        .join(SessionRow, SessionRow.id == StepRow.session_id)
        .where(StepRow.real_observation.is_not(None))
    )
    if domain:
        query = query.where(SessionRow.domain == domain)
    if engine:
        query = query.where(PredictionRow.engine == engine)
    if not rejudge:
        judged = select(ScoreRow.id).where(
            ScoreRow.prediction_id == PredictionRow.id, ScoreRow.name.like(f"{JUDGE_PREFIX}%")
        )
        query = query.where(~exists(judged))
    with session_scope(factory) as session:
        ids = list(session.scalars(query.order_by(PredictionRow.id).limit(limit)))
        return [(prediction_id, _item(session, prediction_id)) for prediction_id in ids]
