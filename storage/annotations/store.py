"""Annotations of predictions: submit, edit with optimistic locking, history, listing, import."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from backend.errors import BadInputError, ConflictError, NotFoundError
from backend.observations import check_observation
from backend.trust import ROLES, TrustRule
from backend.verdicts import Verdict
from storage.annotations.importer import bad_rows_message
from storage.annotations.review import establish
from storage.annotations.rows import (
    annotator_name,
    create_annotation,
    to_edit,
    to_record,
    update_annotation,
)
from storage.annotations.types import (
    AnnotationEdit,
    AnnotationInput,
    AnnotationRecord,
    CorrectionPlace,
    ImportRow,
)
from storage.db import SessionFactory, session_scope
from storage.models import (
    AnnotationEditRow,
    AnnotationRow,
    AnnotatorRow,
    ClaimRow,
    PredictionRow,
    SessionRow,
    SkipRow,
    StepRow,
)
from storage.upsert import ensure_annotator

IMPORT_CHUNK = 500


def settle(session: Session, prediction_id: int, annotation: AnnotationInput) -> AnnotationInput:
    """Check `annotation` against the prediction it judges; the settled annotation to store.

    The truth it establishes must parse as an observation of the domain where that is
    structured (`backend.observations`): a broken document never becomes the real state. The
    step's unknown truth is filled once the annotation is written (`establish`), with a
    `Correction` provenance naming it.

    Raises:
        NotFoundError: the prediction does not exist.
        BadInputError: the verdict contradicts the correction.
        MalformedObservationError: the truth does not parse as the domain's observation.

    """
    prediction = session.get(PredictionRow, prediction_id)
    if prediction is None:
        raise NotFoundError(f"Prediction {prediction_id} does not exist.")
    settled = annotation.settled(prediction.observation)
    if settled.verdict is not Verdict.CANNOT_TELL:
        what = "The correction" if settled.verdict is Verdict.REJECT else "The accepted prediction"
        check_observation(prediction.step.session.domain, settled.correction, what)
    return settled


def checked_role(role: str) -> str:
    """`role` when it is one (`backend.trust.ROLES`).

    Raises:
        BadInputError: it is not.
    """
    if role not in ROLES:
        raise BadInputError(f"Unknown role {role!r}; the roles are {', '.join(ROLES)}.")
    return role


@dataclass(frozen=True)
class ImportResult:
    """How many annotations an import created and how many it updated."""

    created: int
    updated: int


class AnnotationStore:
    """Stores what annotators write; every write is versioned and kept in the history.

    Args:
        factory: the session factory of a `storage.db.Database`.
        trust: the trust rule the state of a step truth a correction sets is judged by
            (`backend.trust`); the default rule when not given.

    """

    def __init__(self, factory: SessionFactory, trust: TrustRule | None = None) -> None:
        self._factory = factory
        self.trust = trust or TrustRule()

    def submit(
        self,
        prediction_id: int,
        annotator: str,
        annotation: AnnotationInput,
        expected_version: int | None = None,
        *,
        source: str = "ui",
        role: str = "annotator",
    ) -> AnnotationRecord:
        """Write `annotator`'s annotation of a prediction and release their claim on it.

        Args:
            prediction_id: the prediction judged.
            annotator: the annotator's name (created on first use).
            annotation: the verdict, correction, ratings, tags and notes.
            expected_version: None for a first annotation; the version last read for an edit.
            source: where the annotation was made (`ui`, `import`, ...).
            role: the annotator's role now (`backend.trust.ROLES`), stored with it: the trust
                rule reads it.

        Returns:
            The annotation at its new version.

        Raises:
            NotFoundError: the prediction (or, for an edit, the annotation) does not exist.
            ConflictError: a first submit where one exists, or an edit of a stale version.
            BadInputError: the verdict contradicts the correction, or an unknown role;
                nothing was saved.

        """
        checked_role(role)
        with session_scope(self._factory) as session:
            me = ensure_annotator(session, annotator)
            annotation = settle(session, prediction_id, annotation)
            existing = session.scalar(
                select(AnnotationRow.id).where(
                    AnnotationRow.prediction_id == prediction_id,
                    AnnotationRow.annotator_id == me,
                )
            )
            if expected_version is None:
                if existing is not None:
                    raise ConflictError(
                        f"{annotator} has already annotated prediction {prediction_id}; reload "
                        "it and edit that annotation instead. Nothing was saved."
                    )
                row = create_annotation(
                    session, prediction_id, me, annotator, annotation, source, role
                )
            else:
                if existing is None:
                    raise NotFoundError(
                        f"{annotator} has no annotation of prediction {prediction_id} to edit."
                    )
                row = update_annotation(
                    session, existing, annotation, expected_version, annotator, source, role
                )
            review = establish(session, row, annotator, self.trust)
            for done in (ClaimRow, SkipRow):
                session.execute(
                    delete(done).where(done.prediction_id == prediction_id, done.annotator_id == me)
                )
            return replace(to_record(row, annotator), review=review)

    def edit(
        self,
        annotation_id: int,
        annotation: AnnotationInput,
        expected_version: int,
        *,
        editor: str,
        source: str = "ui",
        editor_role: str = "annotator",
    ) -> AnnotationRecord:
        """Edit any annotation (a reviewer's fix), refused when `expected_version` is stale.

        The editor's role becomes the annotation's `author_role`: the trust rule judges the
        text by whoever wrote it last.

        Raises:
            NotFoundError: no annotation has that id.
            ConflictError: the annotation moved past `expected_version`; nothing was written.
            BadInputError: the verdict contradicts the correction, or an unknown role;
                nothing was written.

        """
        checked_role(editor_role)
        with session_scope(self._factory) as session:
            current = session.get(AnnotationRow, annotation_id)
            if current is None:
                raise NotFoundError(f"Annotation {annotation_id} does not exist.")
            annotation = settle(session, current.prediction_id, annotation)
            row = update_annotation(
                session, annotation_id, annotation, expected_version, editor, source, editor_role
            )
            author = annotator_name(session, row.annotator_id)
            review = establish(session, row, author, self.trust)
            return replace(to_record(row, author), review=review)

    def get(self, annotation_id: int) -> AnnotationRecord:
        """Return an annotation at its current version.

        Raises:
            NotFoundError: no annotation has that id.

        """
        with session_scope(self._factory) as session:
            row = session.get(AnnotationRow, annotation_id)
            if row is None:
                raise NotFoundError(f"Annotation {annotation_id} does not exist.")
            return to_record(row, annotator_name(session, row.annotator_id))

    def places(self, annotation_ids: Sequence[int]) -> dict[int, CorrectionPlace]:
        """Where each annotation sits: its stored session and step (deleted ones are left out).

        Grounding names a correction `annotation:<id>`; the pages show it as the session step it
        corrects, which is what a person can open. One query for all of them, whatever their
        number, so a page naming every correction of a prediction (or of a session's steps)
        asks once.
        """
        if not annotation_ids:
            return {}
        query = (
            select(AnnotationRow.id, StepRow.session_id, StepRow.index, SessionRow.domain)
            .join(PredictionRow, PredictionRow.id == AnnotationRow.prediction_id)
            .join(StepRow, StepRow.id == PredictionRow.step_id)
            .join(SessionRow, SessionRow.id == StepRow.session_id)
            .where(AnnotationRow.id.in_(set(annotation_ids)))
        )
        with session_scope(self._factory) as session:
            return {
                found: CorrectionPlace(found, session_id, index, domain)
                for found, session_id, index, domain in session.execute(query)
            }

    def history(self, annotation_id: int) -> list[AnnotationEdit]:
        """Every version an annotation was written at, oldest first."""
        query = (
            select(AnnotationEditRow)
            .where(AnnotationEditRow.annotation_id == annotation_id)
            .order_by(AnnotationEditRow.version)
        )
        with session_scope(self._factory) as session:
            return [to_edit(row) for row in session.scalars(query)]

    def list_annotations(
        self,
        prediction_id: int | None = None,
        annotator: str | None = None,
        domain: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[AnnotationRecord]:
        """Annotations, most recently updated first, optionally filtered."""
        query = select(AnnotationRow, AnnotatorRow.name).join(
            AnnotatorRow, AnnotatorRow.id == AnnotationRow.annotator_id
        )
        if prediction_id is not None:
            query = query.where(AnnotationRow.prediction_id == prediction_id)
        if annotator is not None:
            query = query.where(AnnotatorRow.name == annotator)
        if domain is not None:
            query = (
                query.join(PredictionRow, PredictionRow.id == AnnotationRow.prediction_id)
                .join(StepRow, StepRow.id == PredictionRow.step_id)
                .join(SessionRow, SessionRow.id == StepRow.session_id)
                .where(SessionRow.domain == domain)
            )
        query = query.order_by(AnnotationRow.updated_at.desc(), AnnotationRow.id.desc())
        with session_scope(self._factory) as session:
            rows = session.execute(query.limit(limit).offset(offset))
            return [to_record(row, name) for row, name in rows]

    def import_rows(
        self,
        rows: Sequence[tuple[int, ImportRow]],
        *,
        source: str = "import",
        role: str = "annotator",
    ) -> ImportResult:
        """Write annotations made elsewhere, all or nothing.

        A row for an annotator and prediction already annotated becomes a new version of that
        annotation; the history keeps the old one. Each row is checked against the prediction
        it judges by the same rules as the Annotate page.

        Args:
            rows: (line number, validated row) pairs; line numbers appear in errors.
            source: recorded as the annotations' source.
            role: the role the importer declares for the rows' authors (`backend.trust`).

        Raises:
            BadInputError: some rows name predictions that do not exist or break the rules
                (their lines are listed with what is wrong), or an unknown role; nothing was
                written.

        """
        checked_role(role)
        created = updated = 0
        problems: list[tuple[int, str]] = []
        with session_scope(self._factory) as session:
            for start in range(0, len(rows), IMPORT_CHUNK):
                chunk = rows[start : start + IMPORT_CHUNK]
                ids = {row.prediction_id for _, row in chunk}
                found = set(
                    session.scalars(select(PredictionRow.id).where(PredictionRow.id.in_(ids)))
                )
                for line, row in chunk:
                    if row.prediction_id not in found:
                        problems.append((line, f"prediction {row.prediction_id} does not exist"))
                        continue
                    try:
                        settled = settle(session, row.prediction_id, row)
                    except BadInputError as exc:
                        problems.append((line, str(exc)))
                        continue
                    if problems:
                        continue  # the file is refused: only look for more problems
                    if self._import_row(session, row, settled, source, role):
                        created += 1
                    else:
                        updated += 1
                session.flush()  # the identity map is weak: flushed rows of a chunk can go
            if problems:
                raise BadInputError(bad_rows_message(problems))
        return ImportResult(created=created, updated=updated)

    def _import_row(
        self, session: Session, row: ImportRow, settled: AnnotationInput, source: str, role: str
    ) -> bool:
        """Write one imported row; True when it created an annotation, False for a new version."""
        me = ensure_annotator(session, row.annotator)
        current = session.scalar(
            select(AnnotationRow).where(
                AnnotationRow.prediction_id == row.prediction_id,
                AnnotationRow.annotator_id == me,
            )
        )
        if current is None:
            made = create_annotation(
                session, row.prediction_id, me, row.annotator, settled, source, role
            )
        else:
            made = update_annotation(
                session, current.id, settled, current.version, row.annotator, source, role
            )
        establish(session, made, row.annotator, self.trust)
        return current is None
