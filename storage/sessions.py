"""The recorder: sessions and steps as the simulator makes them, each committed at once.

Every write here is its own transaction, so a step is durable by the time the caller shows it;
a process killed afterwards loses nothing it reported.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.errors import NotFoundError
from backend.provenance import Provenance, Recorded
from backend.recording import NewSession, ScoreLike, SessionTarget, StepInput, StepRecord
from backend.types import HistoryMode, Prediction, ReferenceOrigin, SamplingParams, Turn
from storage.convert import provenance_value, stored_session
from storage.db import SessionFactory, session_scope
from storage.lineage import lineage_steps
from storage.models import ObservationOrigin, SessionRow, StepRow, TrajectoryRow
from storage.prompts import load_prompts
from storage.records import SessionSummary, StoredSession
from storage.session_rows import (
    check_origin,
    get_session_row,
    insert_prediction,
    insert_session,
    insert_step,
    insert_steps,
    replace_scores,
    session_summaries,
)

RECORD_ATTEMPTS = 5


def recorded_step(turn: Turn, source: Provenance | None = None) -> StepInput:
    """A turn of a recorded start, stored as a step without a prediction.

    Its provenance is the turn's own; `source` stands in for a turn read from a recording that
    was not stored (a bundled one, a world file's start): its session's base recording.
    """
    origin: ReferenceOrigin | None = "recorded" if turn.observation is not None else None
    provenance = (turn.provenance or source) if turn.observation is not None else None
    return StepInput(turn.action, turn.observation, origin, provenance=provenance)


def base_turn(session: Session, session_id: int, number: int) -> Recorded:
    """The 1-based turn `number` of a session's base recording, as a recorded source."""
    row = get_session_row(session, session_id)
    base = session.get(TrajectoryRow, row.base_trajectory_id) if row.base_trajectory_id else None
    return Recorded(
        dataset=base.source if base is not None else "recording",
        row_id=row.base_trajectory_id or f"session:{session_id}",
        turn=number,
    )


class SessionStore:
    """The recorder (`backend.recording.Recorder`): sessions and their steps, committed at once.

    Args:
        factory: the session factory of a `storage.db.Database`.

    """

    def __init__(self, factory: SessionFactory) -> None:
        self._factory = factory

    def record(
        self, target: SessionTarget, step: StepInput, prefix: Sequence[Turn] = ()
    ) -> StepRecord:
        """Append `prefix` and `step` to a session in one transaction, committed on return.

        Args:
            target: a stored session's id, or a session to create with this step (so a step
                that never commits leaves no empty session behind).
            step: the step, with its prediction (and the exact messages it was made from).
            prefix: earlier turns the session does not hold yet (a recorded start), stored as
                recorded steps without predictions.

        Returns:
            The session, step and prediction ids, and the step's index.

        Raises:
            NotFoundError: `target` names a session that does not exist.
            BadInputError: a real observation without a valid origin, or a bad branch point.

        """
        for attempt in range(1, RECORD_ATTEMPTS + 1):
            try:
                with session_scope(self._factory) as session:
                    if isinstance(target, NewSession):
                        session_id = insert_session(session, target, step.prediction)
                    else:
                        session_id = target
                    for number, turn in enumerate(prefix, start=1):
                        source = None
                        if turn.provenance is None and turn.observation is not None:
                            source = base_turn(session, session_id, number)
                        insert_step(session, session_id, recorded_step(turn, source))
                    return insert_step(session, session_id, step)
            except IntegrityError:
                # Another writer took the same index meanwhile; the next attempt takes the next.
                if attempt == RECORD_ATTEMPTS:
                    raise
        raise RuntimeError("unreachable: the last attempt returns or raises")

    def end_session(self, session_id: int) -> None:
        """Mark an episode's session ended (see `Recorder.end_session`); an unknown id is none.

        Until then a rollout episode's session reads incomplete, so a process killed in the
        middle of an episode leaves it marked, and exports leave it out.
        """
        with session_scope(self._factory) as session:
            session.execute(
                update(SessionRow).where(SessionRow.id == session_id).values(complete=True)
            )

    def record_many(self, items: Sequence[tuple[SessionTarget, StepInput]]) -> list[StepRecord]:
        """Store many steps in one transaction, committed on return (see `Recorder`).

        A vector step of N environments pays one commit instead of N (and none of the N
        transactions' begin/commit statements); an index taken meanwhile by another writer
        retries the whole batch, whose ids nobody has seen yet.

        Raises:
            NotFoundError: a target names a session that does not exist (nothing is stored).
        """
        for attempt in range(1, RECORD_ATTEMPTS + 1):
            try:
                with session_scope(self._factory) as session:
                    resolved = [
                        (
                            insert_session(session, target, step.prediction)
                            if isinstance(target, NewSession)
                            else target,
                            step,
                        )
                        for target, step in items
                    ]
                    return insert_steps(session, resolved)
            except IntegrityError:
                if attempt == RECORD_ATTEMPTS:
                    raise
        raise RuntimeError("unreachable: the last attempt returns or raises")

    def add_prediction(
        self,
        step_id: int,
        prediction: Prediction,
        scores: Sequence[ScoreLike] = (),
        *,
        params: SamplingParams | None = None,
        history_mode: HistoryMode | None = None,
    ) -> int:
        """Store another prediction for an existing step (another engine, a retry).

        Raises:
            NotFoundError: the step does not exist.

        """
        with session_scope(self._factory) as session:
            step = session.get(StepRow, step_id)
            if step is None:
                raise NotFoundError(f"Step {step_id} does not exist.")
            mode = HistoryMode(history_mode or step.session.history_mode).value
            values = params.model_dump() if params is not None else step.session.params
            return insert_prediction(session, step_id, prediction, values, mode, list(scores))

    def add_scores(self, prediction_id: int, scores: Sequence[ScoreLike]) -> None:
        """Store scores for a prediction, replacing any of the same metric name and version."""
        with session_scope(self._factory) as session:
            replace_scores(session, prediction_id, list(scores))

    def set_real_observation(
        self,
        step_id: int,
        observation: str,
        origin: ObservationOrigin | str,
        provenance: Provenance | None,
    ) -> None:
        """Record the real observation of a step after the fact (a live run, an annotator).

        Raises:
            NotFoundError: the step does not exist.
            BadInputError: an unknown origin, or no provenance.

        """
        kind = check_origin(observation, origin)
        source = provenance_value(observation, provenance)
        with session_scope(self._factory) as session:
            step = session.get(StepRow, step_id)
            if step is None:
                raise NotFoundError(f"Step {step_id} does not exist.")
            step.real_observation = observation
            step.origin = kind
            step.provenance = source

    def load_session(self, session_id: int) -> StoredSession:
        """Return a session with every step it sees, predictions and scores included.

        Raises:
            NotFoundError: the session does not exist.

        """
        with session_scope(self._factory) as session:
            row = get_session_row(session, session_id)
            steps = lineage_steps(session, session_id)
            prompts = load_prompts(
                session, ((p.id, p.prompt) for step in steps for p in step.predictions)
            )
            return stored_session(row, steps, prompts)

    def list_sessions(
        self,
        domain: str | None = None,
        owner: str | None = None,
        limit: int = 50,
        offset: int = 0,
        bench_run_id: int | None = None,
    ) -> list[SessionSummary]:
        """Most recently active sessions first, optionally of one domain, owner or benchmark run."""
        with session_scope(self._factory) as session:
            return session_summaries(session, domain, owner, limit, offset, bench_run_id)

    def owns_recording(self, owner: str, trajectory_id: str) -> bool:
        """Whether `owner` has a session started from the recording (their own live run)."""
        query = (
            select(SessionRow.id)
            .where(SessionRow.owner == owner, SessionRow.base_trajectory_id == trajectory_id)
            .limit(1)
        )
        with session_scope(self._factory) as session:
            return session.scalar(query) is not None

    def delete_session(self, session_id: int) -> None:
        """Delete a session with its steps, predictions, scores, annotations and branches.

        Raises:
            NotFoundError: the session does not exist.

        """
        with session_scope(self._factory) as session:
            get_session_row(session, session_id)
            session.execute(delete(SessionRow).where(SessionRow.id == session_id))
