"""Real transitions for grounding, read from the database at retrieval time.

Two kinds of rows are real: the turns of stored recordings (bundled, imported, live runs) and
annotators' corrections (an annotation whose verdict is reject: its correction is the truth)
that the trust rule trusts (`backend.trust`): one anonymous person's correction grounds and
answers for nobody. The rule is judged over the annotations as they are at retrieval time, so a
second agreeing annotator or a reviewer makes a correction real at once. A prediction, even
one an annotator accepted, is never served: grounding must not feed a model its own guesses.
`version` is one aggregate query, so the grounder can check freshness at every retrieval and
rebuild a domain's index only when something changed.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TypeVarTuple

from sqlalchemy import Select, func, select

from backend.grounding.fingerprint import step_path
from backend.grounding.transitions import Transition, trajectory_transitions
from backend.history import state_before
from backend.trust import UNREVIEWED, TrustRule
from backend.verdicts import Verdict
from storage.annotations.review import correction, reviews
from storage.annotations.rows import annotator_name
from storage.db import SessionFactory, session_scope
from storage.lineage import lineage_turns
from storage.models import (
    AnnotationRow,
    PredictionRow,
    SessionRow,
    StepRow,
    TrajectoryRow,
    TurnRow,
)
from storage.trajectories import TrajectoryStore


def annotation_ref(annotation_id: int) -> str:
    """The provenance id of an annotator's correction."""
    return f"annotation:{annotation_id}"


Columns = TypeVarTuple("Columns")


def _judged(statement: Select[*Columns], domain: str) -> Select[*Columns]:
    """`statement` over the domain's annotations (any of them can move a correction's trust)."""
    return (
        statement.join(PredictionRow, PredictionRow.id == AnnotationRow.prediction_id)
        .join(StepRow, StepRow.id == PredictionRow.step_id)
        .join(SessionRow, SessionRow.id == StepRow.session_id)
        .where(SessionRow.domain == domain)
    )


def _corrections(statement: Select[*Columns], domain: str) -> Select[*Columns]:
    """`statement` over the domain's corrections: annotations that reject with their truth."""
    return _judged(statement, domain).where(AnnotationRow.verdict == Verdict.REJECT.value)


class TransitionStore:
    """Serves the real transitions of a domain (implements `backend.grounding.TransitionSource`).

    Args:
        factory: the session factory of a `storage.db.Database`.
        trust: which corrections are real (`backend.trust`); the default rule when not given.
    """

    def __init__(self, factory: SessionFactory, trust: TrustRule | None = None) -> None:
        self._factory = factory
        self._trajectories = TrajectoryStore(factory)
        self.trust = trust or TrustRule()

    def version(self, domain: str) -> Hashable:
        """Counts, largest ids and latest stamps of the domain's turns and corrections.

        A new or replaced recording (its stamp moves, `storage.trajectories`), a new live turn,
        and a new, edited or deleted annotation (which may make a correction trusted) each
        change it.
        """
        turns = (
            select(func.count(TurnRow.id), func.max(TurnRow.id), func.max(TrajectoryRow.updated_at))
            .join(TrajectoryRow, TrajectoryRow.id == TurnRow.trajectory_id)
            .where(TrajectoryRow.domain == domain)
        )
        corrections = _judged(
            select(func.count(AnnotationRow.id), func.max(AnnotationRow.updated_at)).select_from(
                AnnotationRow
            ),
            domain,
        )
        with session_scope(self._factory) as session:
            return (*session.execute(turns).one(), *session.execute(corrections).one())

    def transitions(self, domain: str) -> list[Transition]:
        """The domain's recorded turns with a real observation, then its trusted corrections."""
        found = [
            transition
            for trajectory in self._trajectories.iter_trajectories(domain=domain)
            for transition in trajectory_transitions(trajectory)
        ]
        return found + self._correction_transitions(domain)

    def _correction_transitions(self, domain: str) -> list[Transition]:
        query = _corrections(select(AnnotationRow, StepRow, SessionRow), domain).order_by(
            AnnotationRow.id
        )
        found = []
        with session_scope(self._factory) as session:
            rows = list(session.execute(query))
            states = reviews(session, {a.prediction_id for a, _, _ in rows}, self.trust)
            for annotation, step, owner in rows:
                review = states.get(annotation.id, UNREVIEWED)
                if not review.trusted:
                    continue
                history = lineage_turns(session, owner.id, before=step.index)
                found.append(
                    Transition(
                        annotation_ref(annotation.id),
                        domain,
                        state_before(history, owner.initial_state) or "",
                        step.action,
                        annotation.corrected_observation,
                        owner.base_trajectory_id,
                        path=step_path(domain, owner.initial_state, history, step.action),
                        provenance=correction(
                            annotation, annotator_name(session, annotation.annotator_id), review
                        ),
                    )
                )
        return found
