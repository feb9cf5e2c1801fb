"""The recorder: sessions and steps as the simulator makes them, each committed at once.

Every write here is its own transaction, so a step is durable by the time the caller shows it;
a process killed afterwards loses nothing it reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError

from backend.errors import NotFoundError
from backend.types import HistoryMode, Prediction
from storage.convert import stored_session
from storage.db import SessionFactory, session_scope
from storage.lineage import lineage_steps
from storage.models import ObservationOrigin, SessionRow, StepRow
from storage.records import ScoreLike, SessionSummary, StepRecord, StoredSession
from storage.session_rows import (
    branch_row,
    check_origin,
    get_session_row,
    insert_prediction,
    insert_step,
    replace_scores,
    session_summaries,
)

ADD_STEP_ATTEMPTS = 5


class SessionStore:
    """Creates, extends, loads and branches simulation sessions.

    Args:
        factory: the session factory of a `storage.db.Database`.

    """

    def __init__(self, factory: SessionFactory) -> None:
        self._factory = factory

    def create_session(
        self,
        domain: str,
        engine: str,
        model: str,
        params: Mapping[str, Any],
        history_mode: HistoryMode | str,
        base_trajectory_id: str | None = None,
        owner: str | None = None,
        *,
        system_prompt: str | None = None,
        initial_state: str | None = None,
        task: str = "",
    ) -> int:
        """Store a new, empty session and return its id.

        Args:
            domain: domain name.
            engine: engine name the session simulates with.
            model: model id of the engine.
            params: sampling parameters (`SamplingParams.model_dump()`).
            history_mode: teacher_forced, closed_loop or blind.
            base_trajectory_id: the stored trajectory the session started from, if any.
            owner: who runs it (None for anonymous).
            system_prompt: a custom system prompt (None: the domain's).
            initial_state: the observation before the first action, if any.
            task: the agent's task, when known.

        """
        row = SessionRow(
            domain=domain,
            engine=engine,
            model=model,
            params=dict(params),
            history_mode=HistoryMode(history_mode).value,
            base_trajectory_id=base_trajectory_id,
            owner=owner,
            system_prompt=system_prompt,
            initial_state=initial_state,
            task=task,
        )
        with session_scope(self._factory) as session:
            session.add(row)
            session.flush()
            return row.id

    def add_step(
        self,
        session_id: int,
        action: str,
        real_observation: str | None = None,
        origin: ObservationOrigin | str | None = None,
        prediction: Prediction | None = None,
        scores: Iterable[ScoreLike] = (),
        *,
        params: Mapping[str, Any] | None = None,
    ) -> StepRecord:
        """Append a step (and its prediction and scores) to a session, committed on return.

        Args:
            session_id: the session to extend.
            action: the canonical action text.
            real_observation: the real observation after the action, when known.
            origin: where `real_observation` came from: recorded, live or annotator.
            prediction: the engine's prediction (None for a recorded step without one).
            scores: metric results for the prediction (`MetricResult` or alike).
            params: sampling parameters of this prediction when they differ from the session's.

        Returns:
            The new step's id and index, and the prediction's id.

        Raises:
            NotFoundError: the session does not exist.
            BadInputError: a real observation without a valid origin.

        """
        kind = check_origin(real_observation, origin)
        args = (session_id, action, real_observation, kind, prediction, list(scores), params)
        for attempt in range(1, ADD_STEP_ATTEMPTS + 1):
            try:
                with session_scope(self._factory) as session:
                    return insert_step(session, *args)
            except IntegrityError:
                # Another writer took the same index meanwhile; the next attempt takes the next.
                if attempt == ADD_STEP_ATTEMPTS:
                    raise
        raise RuntimeError("unreachable: the last attempt returns or raises")

    def add_prediction(
        self,
        step_id: int,
        prediction: Prediction,
        scores: Iterable[ScoreLike] = (),
        *,
        params: Mapping[str, Any] | None = None,
        history_mode: HistoryMode | str | None = None,
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
            return insert_prediction(
                session, step_id, prediction, params or step.session.params, mode, list(scores)
            )

    def add_scores(self, prediction_id: int, scores: Iterable[ScoreLike]) -> None:
        """Store scores for a prediction, replacing any of the same metric name and version."""
        with session_scope(self._factory) as session:
            replace_scores(session, prediction_id, list(scores))

    def set_real_observation(
        self, step_id: int, observation: str, origin: ObservationOrigin | str
    ) -> None:
        """Record the real observation of a step after the fact (a live run, an annotator).

        Raises:
            NotFoundError: the step does not exist.
            BadInputError: an unknown origin.

        """
        kind = check_origin(observation, origin)
        with session_scope(self._factory) as session:
            step = session.get(StepRow, step_id)
            if step is None:
                raise NotFoundError(f"Step {step_id} does not exist.")
            step.real_observation = observation
            step.origin = kind

    def load_session(self, session_id: int) -> StoredSession:
        """Return a session with every step it sees, predictions and scores included.

        Raises:
            NotFoundError: the session does not exist.

        """
        with session_scope(self._factory) as session:
            row = get_session_row(session, session_id)
            return stored_session(row, lineage_steps(session, session_id))

    def branch_session(
        self,
        session_id: int,
        at_step: int,
        *,
        owner: str | None = None,
        engine: str | None = None,
        model: str | None = None,
        params: Mapping[str, Any] | None = None,
        history_mode: HistoryMode | str | None = None,
    ) -> int:
        """Start a new session that shares the first `at_step` steps of `session_id`.

        Branching at the current length continues with other settings (another engine);
        branching earlier rewinds. Steps are shared, not copied; overrides default to the
        parent's values.

        Raises:
            NotFoundError: the session does not exist.
            BadInputError: `at_step` is outside 0..number of steps.

        """
        overrides = {
            "owner": owner,
            "engine": engine,
            "model": model,
            "params": None if params is None else dict(params),
            "history_mode": history_mode,
        }
        with session_scope(self._factory) as session:
            row = branch_row(session, session_id, at_step, overrides)
            session.add(row)
            session.flush()
            return row.id

    def list_sessions(
        self, domain: str | None = None, owner: str | None = None, limit: int = 50, offset: int = 0
    ) -> list[SessionSummary]:
        """Most recently active sessions first, optionally of one domain or owner."""
        with session_scope(self._factory) as session:
            return session_summaries(session, domain, owner, limit, offset)

    def delete_session(self, session_id: int) -> None:
        """Delete a session with its steps, predictions, scores, annotations and branches.

        Raises:
            NotFoundError: the session does not exist.

        """
        with session_scope(self._factory) as session:
            get_session_row(session, session_id)
            session.execute(delete(SessionRow).where(SessionRow.id == session_id))
