"""The export side of storage: stored predictions as `backend.export` records, in batches.

Predictions are read in id order, a batch at a time, each batch in its own short transaction,
so an export of any size holds one batch in memory and never blocks writers for long.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import exists, or_, select
from sqlalchemy.orm import Session

from backend.export.records import ExportAnnotation, ExportRecord, ExportScore
from backend.history import state_before
from backend.trust import UNREVIEWED, TrustRule
from backend.types import ChatMessage, HistoryMode, Turn
from backend.verdicts import Verdict
from storage.annotations.review import reviews
from storage.annotations.rows import ratings_of
from storage.convert import read_provenance, session_context
from storage.db import SessionFactory, session_scope
from storage.lineage import lineage_turns
from storage.models import AnnotationRow, AnnotatorRow, PredictionRow, ScoreRow, SessionRow, StepRow
from storage.prompts import load_prompts

EXPORT_BATCH = 500


@dataclass(frozen=True)
class ExportQuery:
    """Which predictions to export.

    Attributes:
        domain: only this domain.
        since: only predictions made, or annotations written, at or after this time.
        min_rating: only annotations whose mean rubric rating is at least this (implies
            annotated predictions only).
        annotated_only: skip predictions nobody annotated (every format but `reward`).
        batch_size: predictions per read.

    """

    domain: str | None = None
    since: datetime | None = None
    min_rating: float | None = None
    annotated_only: bool = True
    batch_size: int = EXPORT_BATCH


def _batch(
    session: Session, query: ExportQuery, after: int
) -> list[tuple[PredictionRow, StepRow, SessionRow]]:
    statement = (
        select(PredictionRow, StepRow, SessionRow)
        .join(StepRow, StepRow.id == PredictionRow.step_id)
        .join(SessionRow, SessionRow.id == StepRow.session_id)
        .where(PredictionRow.id > after, SessionRow.complete.is_(True))
    )
    annotated = select(AnnotationRow.id).where(AnnotationRow.prediction_id == PredictionRow.id)
    if query.domain is not None:
        statement = statement.where(SessionRow.domain == query.domain)
    if query.annotated_only or query.min_rating is not None:
        statement = statement.where(exists(annotated))
    if query.since is not None:
        recent = annotated.where(AnnotationRow.updated_at >= query.since)
        statement = statement.where(or_(PredictionRow.created_at >= query.since, exists(recent)))
    statement = statement.order_by(PredictionRow.id).limit(query.batch_size)
    return [tuple(row) for row in session.execute(statement)]  # type: ignore[misc]


def _annotations(
    session: Session, ids: Sequence[int], trust: TrustRule
) -> dict[int, list[ExportAnnotation]]:
    found: dict[int, list[ExportAnnotation]] = defaultdict(list)
    states = reviews(session, ids, trust)
    statement = (
        select(AnnotationRow, AnnotatorRow.name)
        .join(AnnotatorRow, AnnotatorRow.id == AnnotationRow.annotator_id)
        .where(AnnotationRow.prediction_id.in_(ids))
        .order_by(AnnotationRow.id)
    )
    for row, name in session.execute(statement):
        state = states.get(row.id, UNREVIEWED)
        found[row.prediction_id].append(
            ExportAnnotation(
                annotation_id=row.id,
                annotator=name,
                corrected_observation=row.corrected_observation,
                ratings=ratings_of(row),
                verdict=Verdict(row.verdict),
                tags=list(row.tags),
                notes=row.notes,
                version=row.version,
                updated_at=row.updated_at,
                author_role=row.author_role,
                review=state.state,
                trusted_by=state.trusted_by,
            )
        )
    return found


def _scores(session: Session, ids: Sequence[int]) -> dict[int, list[ExportScore]]:
    found: dict[int, list[ExportScore]] = defaultdict(list)
    statement = select(ScoreRow).where(ScoreRow.prediction_id.in_(ids)).order_by(ScoreRow.id)
    for row in session.scalars(statement):
        found[row.prediction_id].append(ExportScore(row.name, row.version, row.value))
    return found


def iter_export_records(
    factory: SessionFactory, query: ExportQuery, trust: TrustRule | None = None
) -> Iterator[ExportRecord]:
    """Yield one record per (prediction, annotation), or per prediction when unannotated.

    Memory holds one batch of predictions and the histories of their sessions. Each annotation
    carries its state under `trust` (the default rule when not given).
    """
    rule = trust or TrustRule()
    after = 0
    while True:
        with session_scope(factory) as session:
            batch = _batch(session, query, after)
            if not batch:
                return
            ids = [prediction.id for prediction, _, _ in batch]
            annotations = _annotations(session, ids, rule)
            scores = _scores(session, ids)
            prompts = load_prompts(session, ((p.id, p.prompt) for p, _, _ in batch))
            histories = {owner.id: lineage_turns(session, owner.id) for _, _, owner in batch}
            records = [
                record
                for prediction, step, owner in batch
                for record in _records(
                    prediction,
                    step,
                    owner,
                    histories[owner.id],
                    prompts.get(prediction.id),
                    annotations[prediction.id],
                    scores[prediction.id],
                    query,
                )
            ]
        yield from records
        after = ids[-1]


def _records(
    prediction: PredictionRow,
    step: StepRow,
    owner: SessionRow,
    steps: list[Turn],
    messages: list[ChatMessage] | None,
    annotations: list[ExportAnnotation],
    scores: list[ExportScore],
    query: ExportQuery,
) -> Iterator[ExportRecord]:
    # A session's lineage is contiguous from index 0, so the history is a prefix of it.
    history = steps[: step.index]
    if query.min_rating is not None:
        annotations = [a for a in annotations if (a.mean_rating() or 0) >= query.min_rating]
    if query.since is not None:
        since = query.since
        if prediction.created_at < since:
            annotations = [a for a in annotations if a.updated_at >= since]
    chosen: list[ExportAnnotation | None] = list(annotations)
    if not chosen and not query.annotated_only and query.min_rating is None:
        chosen = [None]
    for annotation in chosen:
        yield ExportRecord(
            session_id=owner.id,
            step_id=step.id,
            step_index=step.index,
            prediction_id=prediction.id,
            domain=owner.domain,
            engine=prediction.engine,
            model=prediction.model,
            history_mode=HistoryMode(prediction.history_mode),
            system_prompt=owner.system_prompt,
            context=session_context(owner),
            initial_state=owner.initial_state,
            history=history,
            messages=messages,
            action=step.action,
            real_observation=step.real_observation,
            previous_observation=state_before(history, owner.initial_state),
            predicted_observation=prediction.observation,
            raw_text=prediction.raw_text,
            created_at=prediction.created_at,
            scores=scores,
            annotation=annotation,
            grounded_by=list(prediction.grounded_by or []),
            answered_by=step.answered_by,
            confidence=prediction.confidence,
            history_dropped=prediction.history_dropped,
            provenance=read_provenance(prediction.provenance),
            real_provenance=read_provenance(step.provenance),
        )
