"""Annotations under the trust rule: their current review state, and the step truth they set.

The state is never stored as the answer to "may this correction answer as reality?": readers
(`storage.transitions`, exports) ask `reviews` over the annotations as they are now, so a second
agreeing annotator or a reviewer's correction changes it at once. The step a correction made
real keeps a `Correction` provenance (`backend.provenance`) that every write on its prediction
brings up to date, for the pages that say who answered.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from backend.provenance import Correction, parse_provenance, stored
from backend.trust import UNREVIEWED, Claim, Review, TrustRule
from backend.verdicts import Verdict
from storage.models import (
    AnnotationEditRow,
    AnnotationRow,
    AnnotatorRow,
    ObservationOrigin,
    PredictionRow,
    StepRow,
)


def claims_of(session: Session, prediction_ids: Iterable[int]) -> dict[int, list[Claim]]:
    """Every truth annotators established for each prediction (cannot tell establishes none).

    A settled accept stores the prediction as its correction, so the stored correction is the
    truth of both accept and reject.
    """
    ids = set(prediction_ids)
    found: dict[int, list[Claim]] = defaultdict(list)
    if not ids:
        return found
    # the author of a claim is whoever wrote its current text: a reviewer who edited an
    # anonymous person's annotation vouches for it under their own name and role
    query = (
        select(AnnotationRow, func.coalesce(AnnotationEditRow.editor, AnnotatorRow.name))
        .join(AnnotatorRow, AnnotatorRow.id == AnnotationRow.annotator_id)
        .outerjoin(
            AnnotationEditRow,
            (AnnotationEditRow.annotation_id == AnnotationRow.id)
            & (AnnotationEditRow.version == AnnotationRow.version),
        )
        .where(
            AnnotationRow.prediction_id.in_(ids),
            AnnotationRow.verdict != Verdict.CANNOT_TELL.value,
        )
        .order_by(AnnotationRow.id)
    )
    for row, name in session.execute(query):
        found[row.prediction_id].append(
            Claim(row.id, name, row.author_role, row.corrected_observation)
        )
    return found


def reviews(session: Session, prediction_ids: Iterable[int], rule: TrustRule) -> dict[int, Review]:
    """The current state of every annotation of these predictions, by annotation id.

    A cannot-tell annotation is absent (it claims no truth); callers read it as unreviewed.
    """
    found: dict[int, Review] = {}
    for claims in claims_of(session, prediction_ids).values():
        found.update(rule.reviews(claims))
    return found


def correction(row: AnnotationRow, author: str, review: Review) -> Correction:
    """The provenance of a step truth `row` established, in its current review state."""
    return Correction(
        annotation_id=row.id,
        author=author,
        role=row.author_role,
        review=review.state,
        trusted_by=review.trusted_by,
    )


def establish(session: Session, row: AnnotationRow, author: str, rule: TrustRule) -> Review:
    """Fill the step's unknown truth from `row`, and bring its correction provenance up to date.

    Returns:
        `row`'s state under `rule` now (unreviewed for cannot tell, which claims no truth).

    Only a verdict that establishes the truth (accept, or reject with its correction) may set a
    real observation nobody recorded; cannot tell never does, and a known one is never replaced:
    the write is one conditional UPDATE, so of two annotators submitting at once the first wins.
    Whichever annotation of the prediction set it, its provenance then says its state now.
    """
    prediction = session.get(PredictionRow, row.prediction_id)
    states = reviews(session, [row.prediction_id], rule)
    review = states.get(row.id, UNREVIEWED)
    if prediction is None:
        return review
    if row.verdict != Verdict.CANNOT_TELL.value:
        made = correction(row, author, review)
        session.execute(
            update(StepRow)
            .where(StepRow.id == prediction.step_id, StepRow.real_observation.is_(None))
            .values(
                real_observation=row.corrected_observation,
                origin=ObservationOrigin.ANNOTATOR.value,
                provenance=stored(made),
            )
            .execution_options(synchronize_session=False)
        )
    _refresh(session, prediction.step_id, states)
    return review


def _refresh(session: Session, step_id: int, states: dict[int, Review]) -> None:
    """Rewrite the step's correction provenance when its annotation's state or role moved."""
    step = session.get(StepRow, step_id, populate_existing=True)
    if step is None or step.provenance is None or step.origin != ObservationOrigin.ANNOTATOR:
        return
    current = parse_provenance(step.provenance)
    if not isinstance(current, Correction) or current.annotation_id not in states:
        return
    row = session.get(AnnotationRow, current.annotation_id)
    if row is None:
        return
    now = correction(row, current.author, states[current.annotation_id])
    if now != current:
        step.provenance = stored(now)
