"""The review queue: predictions to annotate, handed out with an expiring claim.

A claim is one `INSERT ... ON CONFLICT DO UPDATE ... WHERE expired or mine` statement, atomic on
SQLite and PostgreSQL alike, so two annotators asking at once never get the same prediction
while its claim lasts, and an abandoned claim frees itself when it expires.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, exists, func, or_, select
from sqlalchemy.orm import Session
from sqlalchemy.sql import Select

from backend.errors import ConflictError, NotFoundError
from storage.annotations.context import queue_item
from storage.annotations.types import QueueFilter, QueueItem
from storage.db import SessionFactory, session_scope
from storage.models import (
    AnnotationRow,
    ClaimRow,
    PredictionRow,
    ScoreRow,
    SessionRow,
    StepRow,
    utcnow,
)
from storage.upsert import dialect_insert, ensure_annotator, find_annotator

DEFAULT_CLAIM_TTL = timedelta(minutes=30)
CANDIDATE_BATCH = 16


def _candidates(query_filter: QueueFilter, me: int | None, now: datetime) -> Select[Any]:
    """Prediction ids the filter offers to annotator `me`, own live claims first, then oldest."""
    mine = and_(ClaimRow.annotator_id == me, ClaimRow.expires_at > now) if me is not None else None
    query = (
        select(PredictionRow.id)
        .join(StepRow, StepRow.id == PredictionRow.step_id)
        .join(SessionRow, SessionRow.id == StepRow.session_id)
        .outerjoin(ClaimRow, ClaimRow.prediction_id == PredictionRow.id)
        .where(
            or_(
                ClaimRow.prediction_id.is_(None),
                ClaimRow.expires_at <= now,
                ClaimRow.annotator_id == me,
            )
        )
    )
    if query_filter.domain is not None:
        query = query.where(SessionRow.domain == query_filter.domain)
    if query_filter.engine is not None:
        query = query.where(PredictionRow.engine == query_filter.engine)
    if query_filter.metric is not None:
        score = select(ScoreRow.id).where(
            ScoreRow.prediction_id == PredictionRow.id, ScoreRow.name == query_filter.metric
        )
        if query_filter.min_value is not None:
            score = score.where(ScoreRow.value >= query_filter.min_value)
        if query_filter.max_value is not None:
            score = score.where(ScoreRow.value <= query_filter.max_value)
        query = query.where(exists(score))
    annotated = select(AnnotationRow.id).where(AnnotationRow.prediction_id == PredictionRow.id)
    if query_filter.unannotated_only:
        query = query.where(~exists(annotated))
    elif me is not None:
        query = query.where(~exists(annotated.where(AnnotationRow.annotator_id == me)))
    order = (
        [PredictionRow.id]
        if mine is None
        else [func.coalesce(mine, False).desc(), PredictionRow.id]
    )
    return query.order_by(*order)


class AnnotationQueue:
    """Offers predictions for review and hands them out one at a time.

    Args:
        factory: the session factory of a `storage.db.Database`.
        claim_ttl: how long a handed-out prediction stays reserved for its annotator.

    """

    def __init__(self, factory: SessionFactory, claim_ttl: timedelta = DEFAULT_CLAIM_TTL) -> None:
        self._factory = factory
        self.claim_ttl = claim_ttl

    def pending(
        self, annotator: str, query_filter: QueueFilter | None = None, limit: int = 50
    ) -> list[QueueItem]:
        """Predictions `annotator` could claim now (not claimed by others), without claiming."""
        now = utcnow()
        with session_scope(self._factory) as session:
            me = find_annotator(session, annotator)
            query = _candidates(query_filter or QueueFilter(), me, now).limit(limit)
            return [queue_item(session, pid, None) for pid in session.scalars(query)]

    def count_pending(self, annotator: str, query_filter: QueueFilter | None = None) -> int:
        """How many predictions `annotator` could claim now."""
        with session_scope(self._factory) as session:
            me = find_annotator(session, annotator)
            query = _candidates(query_filter or QueueFilter(), me, utcnow()).order_by(None)
            return session.scalar(select(func.count()).select_from(query.subquery())) or 0

    def claim_next(
        self, annotator: str, query_filter: QueueFilter | None = None
    ) -> QueueItem | None:
        """Claim the next prediction for `annotator`; None when the queue is empty.

        An annotator asking again before submitting gets their own claimed item back first, so
        reloading the page does not strand claims.
        """
        skipped: set[int] = set()
        while True:
            now = utcnow()
            with session_scope(self._factory) as session:
                me = find_annotator(session, annotator)
                query = _candidates(query_filter or QueueFilter(), me, now)
                if skipped:
                    query = query.where(PredictionRow.id.not_in(skipped))
                batch = list(session.scalars(query.limit(CANDIDATE_BATCH)))
            if not batch:
                return None
            for prediction_id in batch:
                item = self._try_claim(prediction_id, annotator, query_filter or QueueFilter())
                if item is not None:
                    return item
                skipped.add(prediction_id)

    def claim(self, prediction_id: int, annotator: str) -> QueueItem:
        """Claim one given prediction (an annotator opening it from a list).

        Raises:
            NotFoundError: the prediction does not exist.
            ConflictError: another annotator holds a live claim on it.

        """
        item = self._try_claim(prediction_id, annotator)
        if item is None:
            raise ConflictError(
                f"Prediction {prediction_id} is being reviewed by another annotator; "
                "pick another one or try again when their claim expires."
            )
        return item

    def release(self, prediction_id: int, annotator: str) -> None:
        """Give a claimed prediction back to the queue (skip)."""
        with session_scope(self._factory) as session:
            me = find_annotator(session, annotator)
            session.execute(
                delete(ClaimRow).where(
                    ClaimRow.prediction_id == prediction_id, ClaimRow.annotator_id == me
                )
            )

    def _try_claim(
        self, prediction_id: int, annotator: str, query_filter: QueueFilter | None = None
    ) -> QueueItem | None:
        session = self._factory()
        try:
            me = ensure_annotator(session, annotator)
            now = utcnow()
            expires = now + self.claim_ttl
            if not _claim(session, prediction_id, me, now, expires):
                session.rollback()
                return None
            # The candidate list was read before the claim: someone may have annotated the
            # prediction since. Re-check under the claim and give it back if it no longer fits.
            if query_filter is not None:
                still = _candidates(query_filter, me, now).where(PredictionRow.id == prediction_id)
                if session.scalar(still) is None:
                    session.rollback()
                    return None
            item = queue_item(session, prediction_id, expires)
            session.commit()
            return item
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()


def _claim(session: Session, prediction_id: int, me: int, now: datetime, expires: datetime) -> bool:
    if session.get(PredictionRow, prediction_id) is None:
        raise NotFoundError(f"Prediction {prediction_id} does not exist.")
    statement = dialect_insert(session, ClaimRow).values(
        prediction_id=prediction_id, annotator_id=me, claimed_at=now, expires_at=expires
    )
    statement = statement.on_conflict_do_update(
        index_elements=[ClaimRow.prediction_id],
        set_={
            "annotator_id": statement.excluded.annotator_id,
            "claimed_at": statement.excluded.claimed_at,
            "expires_at": statement.excluded.expires_at,
        },
        where=or_(ClaimRow.expires_at <= now, ClaimRow.annotator_id == me),
    )
    # RETURNING, not rowcount: psycopg reports -1 for INSERT ... ON CONFLICT on PostgreSQL.
    claimed = session.execute(statement.returning(ClaimRow.prediction_id)).first()
    return claimed is not None
