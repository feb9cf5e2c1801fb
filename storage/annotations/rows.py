"""Row-level annotation writes: create, versioned update and the history entry of each write."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.errors import ConflictError, NotFoundError
from backend.verdicts import Verdict
from storage.annotations.types import AnnotationEdit, AnnotationInput, AnnotationRecord
from storage.models import (
    RATING_DIMENSIONS,
    AnnotationEditRow,
    AnnotationRow,
    AnnotatorRow,
    utcnow,
)


def annotation_fields(data: AnnotationInput, role: str) -> dict[str, Any]:
    """Column values of an annotation `role` wrote from `data` (settled against its prediction)."""
    fields: dict[str, Any] = {
        "author_role": role,
        "corrected_observation": data.correction,
        "verdict": data.verdict.value,
        "tags": list(data.tags),
        "notes": data.notes,
    }
    fields.update({f"rating_{dim}": value for dim, value in data.ratings.as_dict().items()})
    return fields


def ratings_of(row: AnnotationRow) -> dict[str, int | None]:
    """Dimension -> rating of a stored annotation."""
    return {dim: getattr(row, f"rating_{dim}") for dim in RATING_DIMENSIONS}


def record_edit(session: Session, row: AnnotationRow, editor: str) -> None:
    """Append the history entry for the version `row` is now at."""
    session.add(
        AnnotationEditRow(
            annotation_id=row.id,
            version=row.version,
            editor=editor,
            corrected_observation=row.corrected_observation,
            ratings=ratings_of(row),
            verdict=row.verdict,
            tags=list(row.tags),
            notes=row.notes,
            source=row.source,
        )
    )


def create_annotation(
    session: Session,
    prediction_id: int,
    annotator_id: int,
    annotator: str,
    data: AnnotationInput,
    source: str,
    role: str,
) -> AnnotationRow:
    """Insert a new annotation at version 1 with its first history entry; `role` is its author's.

    Raises:
        ConflictError: the annotator already annotated this prediction (a concurrent submit).

    """
    row = AnnotationRow(
        prediction_id=prediction_id,
        annotator_id=annotator_id,
        source=source,
        version=1,
        **annotation_fields(data, role),
    )
    session.add(row)
    try:
        session.flush()
    except IntegrityError:
        raise ConflictError(
            f"{annotator} has already annotated prediction {prediction_id}; reload it and edit "
            "that annotation instead. Nothing was saved."
        ) from None
    record_edit(session, row, annotator)
    return row


def update_annotation(
    session: Session,
    annotation_id: int,
    data: AnnotationInput,
    expected_version: int,
    editor: str,
    source: str,
    role: str,
) -> AnnotationRow:
    """Overwrite an annotation only if it is still at `expected_version`; record the edit.

    `role` is the editor's, which becomes the annotation's `author_role`.

    The version check and the write are one UPDATE statement, so two writers holding the same
    version cannot both succeed on either database.

    Raises:
        NotFoundError: no annotation has that id.
        ConflictError: the annotation moved past `expected_version`; nothing was written.

    """
    result: Any = session.execute(
        update(AnnotationRow)
        .where(AnnotationRow.id == annotation_id, AnnotationRow.version == expected_version)
        .values(
            version=AnnotationRow.version + 1,
            updated_at=utcnow(),
            source=source,
            **annotation_fields(data, role),
        )
        .execution_options(synchronize_session=False)
    )
    row = session.get(AnnotationRow, annotation_id, populate_existing=True)
    if row is None:
        raise NotFoundError(f"Annotation {annotation_id} does not exist.")
    if result.rowcount != 1:
        raise ConflictError(
            f"Annotation {annotation_id} was changed by someone else since you opened it (you "
            f"edited version {expected_version}, it is now at version {row.version}). Nothing "
            "was saved: reload it and apply your change again."
        )
    record_edit(session, row, editor)
    return row


def annotator_name(session: Session, annotator_id: int) -> str:
    """Return the name of an annotator id."""
    name = session.scalar(select(AnnotatorRow.name).where(AnnotatorRow.id == annotator_id))
    return name or ""


def to_record(row: AnnotationRow, annotator: str) -> AnnotationRecord:
    """A plain copy of an annotation row."""
    return AnnotationRecord(
        annotation_id=row.id,
        prediction_id=row.prediction_id,
        annotator=annotator,
        corrected_observation=row.corrected_observation,
        ratings=ratings_of(row),
        verdict=Verdict(row.verdict),
        tags=list(row.tags),
        notes=row.notes,
        source=row.source,
        version=row.version,
        created_at=row.created_at,
        updated_at=row.updated_at,
        author_role=row.author_role,
    )


def to_edit(row: AnnotationEditRow) -> AnnotationEdit:
    """A plain copy of a history row."""
    return AnnotationEdit(
        annotation_id=row.annotation_id,
        version=row.version,
        editor=row.editor,
        corrected_observation=row.corrected_observation,
        ratings=dict(row.ratings),
        verdict=Verdict(row.verdict),
        tags=list(row.tags),
        notes=row.notes,
        source=row.source,
        created_at=row.created_at,
    )
