"""The steps a session sees: its ancestors' steps before each branch point, then its own."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from backend.errors import NotFoundError
from backend.provenance import parse_provenance
from backend.types import Turn
from storage.models import PredictionRow, SessionRow, StepRow

MAX_BRANCH_DEPTH = 1_000


def session_chain(session: Session, session_id: int) -> list[tuple[SessionRow, int | None]]:
    """Return `(session, upper index bound)` from the root ancestor down to `session_id`.

    A session inherits its ancestors' steps with an index below the bound: the lowest branch
    point on the way down to `session_id` (a branch of a branch sees no more of the root than
    its own parent did). The requested session itself has no bound.

    Raises:
        NotFoundError: the session does not exist.

    """
    row = session.get(SessionRow, session_id)
    if row is None:
        raise NotFoundError(f"Session {session_id} does not exist.")
    chain: list[tuple[SessionRow, int | None]] = [(row, None)]
    bound: int | None = None
    while row.parent_session_id is not None and len(chain) < MAX_BRANCH_DEPTH:
        point = row.branched_at or 0
        bound = point if bound is None else min(bound, point)
        parent = session.get(SessionRow, row.parent_session_id)
        if parent is None:
            break
        chain.append((parent, bound))
        row = parent
    chain.reverse()
    return chain


def lineage_steps(
    session: Session, session_id: int, *, before: int | None = None, with_predictions: bool = True
) -> list[StepRow]:
    """Return every step session `session_id` sees, in index order.

    Args:
        session: an open SQLAlchemy session.
        session_id: the session whose history is wanted.
        before: only steps with a lower index (the history of step `before`).
        with_predictions: also load each step's predictions and their scores.

    Raises:
        NotFoundError: the session does not exist.

    """
    steps: list[StepRow] = []
    for row, bound in session_chain(session, session_id):
        limits = [b for b in (bound, before) if b is not None]
        query = select(StepRow).where(StepRow.session_id == row.id)
        if limits:
            query = query.where(StepRow.index < min(limits))
        if with_predictions:
            query = query.options(
                selectinload(StepRow.predictions).selectinload(PredictionRow.scores)
            )
        steps.extend(session.scalars(query.order_by(StepRow.index)))
    return steps


def lineage_turns(session: Session, session_id: int, *, before: int | None = None) -> list[Turn]:
    """Every step session `session_id` sees as a history turn: real and first prediction.

    Lighter than `lineage_steps` with predictions: only each step's first prediction's
    observation is read, which is all `backend.history` needs.
    """
    steps = lineage_steps(session, session_id, before=before, with_predictions=False)
    ids = [step.id for step in steps]
    first = (
        select(PredictionRow.step_id, func.min(PredictionRow.id).label("id"))
        .where(PredictionRow.step_id.in_(ids))
        .group_by(PredictionRow.step_id)
        .subquery()
    )
    rows = session.execute(
        select(first.c.step_id, PredictionRow.observation).join(
            PredictionRow, PredictionRow.id == first.c.id
        )
    )
    predicted: dict[int, str] = {step_id: observation for step_id, observation in rows}
    return [
        Turn(
            action=s.action,
            observation=s.real_observation,
            predicted=predicted.get(s.id),
            provenance=parse_provenance(s.provenance) if s.provenance is not None else None,
        )
        for s in steps
    ]
