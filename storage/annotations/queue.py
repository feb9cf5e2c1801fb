"""The review queue: predictions to annotate, handed out with an expiring claim.

A claim is one `INSERT ... ON CONFLICT DO UPDATE ... WHERE expired or mine` statement, atomic on
SQLite and PostgreSQL alike, so two annotators asking at once never get the same prediction
while its claim lasts, and an abandoned claim frees itself when it expires.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, delete, exists, func, or_, select
from sqlalchemy.orm import Session
from sqlalchemy.sql import Select

from backend.errors import ConflictError, NotFoundError
from backend.types import EXACT_ANSWERERS
from storage.annotations.context import queue_item
from storage.annotations.types import HeldElsewhere, QueueFilter, QueueItem
from storage.db import SessionFactory, session_scope
from storage.models import (
    AnnotationRow,
    ClaimRow,
    PredictionRow,
    ScoreRow,
    SessionRow,
    SkipRow,
    StepRow,
    utcnow,
)
from storage.upsert import dialect_insert, ensure_annotator, find_annotator

DEFAULT_CLAIM_TTL = timedelta(minutes=30)
CANDIDATE_BATCH = 16


def _offered(query_filter: QueueFilter, me: int | None, overlap: int | None = None) -> Select[Any]:
    """Prediction ids the filter offers to annotator `me`, whoever holds them.

    With `overlap`, a prediction leaves the queue once that many annotators annotated it.
    """
    query = (
        select(PredictionRow.id)
        .join(StepRow, StepRow.id == PredictionRow.step_id)
        .join(SessionRow, SessionRow.id == StepRow.session_id)
        .where(PredictionRow.engine.not_in(EXACT_ANSWERERS))  # reality needs no review
    )
    if query_filter.domain is not None:
        query = query.where(SessionRow.domain == query_filter.domain)
    if query_filter.engine is not None:
        query = query.where(PredictionRow.engine == query_filter.engine)
    if query_filter.session_id is not None:
        query = query.where(SessionRow.id == query_filter.session_id)
    if query_filter.kind is not None:
        query = query.where(SessionRow.kind == query_filter.kind)
    if query_filter.hide_trivial:
        query = query.where(
            ~PredictionRow.model.startswith("baseline:"),
            or_(
                StepRow.real_observation.is_(None),
                StepRow.real_observation != PredictionRow.observation,
            ),
        )
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
    if overlap is not None:
        done = select(func.count(AnnotationRow.id)).where(
            AnnotationRow.prediction_id == PredictionRow.id
        )
        query = query.where(done.scalar_subquery() < overlap)
    if query_filter.unannotated_only:
        query = query.where(~exists(annotated))
    elif me is not None:
        query = query.where(~exists(annotated.where(AnnotationRow.annotator_id == me)))
    return query


def _candidates(
    query_filter: QueueFilter, me: int | None, now: datetime, overlap: int | None = None
) -> Select[Any]:
    """What `me` may claim now, in queue order.

    Own live claims first, then predictions `me` never skipped, then those `me` skipped, the
    longest ago first; within each, the least confident when the filter asks for it (the
    reviewer asked: it comes before the default order), then a step whose real state nobody
    knows (a reviewer's correction is its only truth), then the oldest.
    """
    query = (
        _offered(query_filter, me, overlap)
        .outerjoin(ClaimRow, ClaimRow.prediction_id == PredictionRow.id)
        .where(
            or_(
                ClaimRow.prediction_id.is_(None),
                ClaimRow.expires_at <= now,
                ClaimRow.annotator_id == me,
            )
        )
    )
    confident = (
        [PredictionRow.confidence.is_(None), PredictionRow.confidence]
        if query_filter.least_confident
        else []
    )
    unknown_first = case((StepRow.real_observation.is_(None), 0), else_=1)
    if me is None:
        return query.order_by(*confident, unknown_first, PredictionRow.id)
    mine = and_(ClaimRow.annotator_id == me, ClaimRow.expires_at > now)
    query = query.outerjoin(
        SkipRow, and_(SkipRow.prediction_id == PredictionRow.id, SkipRow.annotator_id == me)
    )
    skipped = case((SkipRow.skipped_at.is_(None), 0), else_=1)
    return query.order_by(
        func.coalesce(mine, False).desc(),
        skipped,
        SkipRow.skipped_at,
        *confident,
        unknown_first,
        PredictionRow.id,
    )


class AnnotationQueue:
    """Offers predictions for review and hands them out one at a time.

    Args:
        factory: the session factory of a `storage.db.Database`.
        claim_ttl: how long a handed-out prediction stays reserved for its annotator.
        overlap: how many different annotators annotate each prediction before it leaves the
            queue (`Settings.annotation_overlap`; 2 or 3 for agreement studies). None: it
            never leaves; every annotator may annotate it once.

    """

    def __init__(
        self,
        factory: SessionFactory,
        claim_ttl: timedelta = DEFAULT_CLAIM_TTL,
        overlap: int | None = None,
    ) -> None:
        self._factory = factory
        self.claim_ttl = claim_ttl
        self.overlap = overlap

    def pending(
        self, annotator: str, query_filter: QueueFilter | None = None, limit: int = 50
    ) -> list[QueueItem]:
        """Predictions `annotator` could claim now (not claimed by others), without claiming."""
        now = utcnow()
        with session_scope(self._factory) as session:
            me = find_annotator(session, annotator)
            query = _candidates(query_filter or QueueFilter(), me, now, self.overlap).limit(limit)
            return [queue_item(session, pid, None, annotator) for pid in session.scalars(query)]

    def count_pending(self, annotator: str, query_filter: QueueFilter | None = None) -> int:
        """How many predictions `annotator` could claim now."""
        with session_scope(self._factory) as session:
            me = find_annotator(session, annotator)
            query = _candidates(query_filter or QueueFilter(), me, utcnow(), self.overlap)
            query = query.order_by(None)
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
                query = _candidates(query_filter or QueueFilter(), me, now, self.overlap)
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
        """Give a claimed prediction back to the queue, keeping its place in it."""
        with session_scope(self._factory) as session:
            me = find_annotator(session, annotator)
            session.execute(
                delete(ClaimRow).where(
                    ClaimRow.prediction_id == prediction_id, ClaimRow.annotator_id == me
                )
            )

    def skip(self, prediction_id: int, annotator: str) -> None:
        """Give a claimed prediction back and send it to the back of `annotator`'s queue.

        The skip is stored, so the order holds across page reloads; the others' queues keep
        their order.

        Raises:
            NotFoundError: the prediction does not exist.

        """
        now = utcnow()
        with session_scope(self._factory) as session:
            if session.get(PredictionRow, prediction_id) is None:
                raise NotFoundError(f"Prediction {prediction_id} does not exist.")
            me = ensure_annotator(session, annotator)
            session.execute(
                delete(ClaimRow).where(
                    ClaimRow.prediction_id == prediction_id, ClaimRow.annotator_id == me
                )
            )
            statement = dialect_insert(session, SkipRow).values(
                prediction_id=prediction_id, annotator_id=me, skipped_at=now
            )
            session.execute(
                statement.on_conflict_do_update(
                    index_elements=[SkipRow.prediction_id, SkipRow.annotator_id],
                    set_={"skipped_at": statement.excluded.skipped_at},
                )
            )

    def held_elsewhere(
        self, annotator: str, query_filter: QueueFilter | None = None
    ) -> HeldElsewhere:
        """Predictions the filter offers `annotator` that other annotators hold claims on now."""
        now = utcnow()
        with session_scope(self._factory) as session:
            me = find_annotator(session, annotator)
            held = _offered(query_filter or QueueFilter(), me, self.overlap).join(
                ClaimRow, ClaimRow.prediction_id == PredictionRow.id
            )
            held = held.where(ClaimRow.expires_at > now)
            if me is not None:
                held = held.where(ClaimRow.annotator_id != me)
            inner = held.add_columns(ClaimRow.expires_at.label("expires_at")).subquery()
            count, first, last = session.execute(
                select(func.count(), func.min(inner.c.expires_at), func.max(inner.c.expires_at))
            ).one()
        return HeldElsewhere(count=count, first_expiry=first, last_expiry=last)

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
                still = _candidates(query_filter, me, now, self.overlap)
                still = still.where(PredictionRow.id == prediction_id)
                if session.scalar(still) is None:
                    session.rollback()
                    return None
            item = queue_item(session, prediction_id, expires, annotator)
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
