"""The playground's service: start sessions, run a streamed step, store it, rewind and branch.

Callbacks stay a few lines because the work lives here: validate the action (nothing is sent when
it is bad), stream the prediction, score it against the real observation when one is known, and
commit the step before it is shown as done.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, replace

from backend.domains.base import get_domain
from backend.errors import BadInputError, EngineRequestError
from backend.scoring import MetricResult, headline_metric, score_observation
from backend.types import Prediction
from storage.sessions import SessionStore
from ui.services import EngineChoice, Services
from ui.session import RECORDED, PlaySession, PlayStep, Score

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Partial:
    """The prediction so far, while it streams, and the real next state when it is known."""

    text: str
    reasoning: str
    real: str | None


@dataclass(frozen=True)
class Done:
    """The finished, stored step: the session now ends with it."""

    session: PlaySession


def score(session: PlaySession, prediction: Prediction, real: str | None) -> list[MetricResult]:
    """Deterministic scores of the prediction against the real observation, headline first.

    A recording the metrics cannot parse (or one too large to score) leaves the step unscored
    rather than failing it: the prediction is still worth showing and storing.
    """
    if real is None:
        return []
    try:
        results = score_observation(
            session.domain, prediction.observation, real, session.previous_observation()
        )
    except BadInputError:
        logger.warning("step left unscored", exc_info=True)
        return []
    headline = headline_metric(session.domain)
    return sorted(results, key=lambda result: result.name != headline)


class Playground:
    """Session operations over the simulator and the session store.

    Args:
        services: the app's services.
    """

    def __init__(self, services: Services) -> None:
        self.services = services

    @property
    def store(self) -> SessionStore:
        """The session recorder."""
        return self.services.sessions

    def start(self, domain: str, trajectory_id: str | None, start: int) -> PlaySession:
        """A new session: at turn `start` of a stored recording, or blank when none is given."""
        if not trajectory_id:
            return PlaySession(domain)
        trajectory = self.services.trajectories.get(trajectory_id)
        if trajectory.domain != domain:
            raise BadInputError(f"Trajectory {trajectory_id} is not in the {domain} domain.")
        return PlaySession.from_trajectory(trajectory, start)

    def step(
        self, session: PlaySession, action: str, choice: EngineChoice, owner: str
    ) -> Iterator[Partial | Done]:
        """Validate, stream the prediction, score and store it.

        Raises:
            BadActionError: the action does not follow the domain's format (nothing is sent).
            EngineUnavailableError, EngineRequestError: the engine failed.
        """
        canonical = get_domain(session.domain).validate(action, session.context)
        real = session.real_for(canonical)
        request = session.request(canonical, choice.history_mode, choice.params, real)
        simulator = self.services.simulator(choice.engine, choice.model, choice.base_url or None)
        text, reasoning = "", ""
        prediction: Prediction | None = None
        yield Partial(text, reasoning, real)
        for item in simulator.stream(request, session.context):
            if isinstance(item, Prediction):  # the last item: the loop ends and the stream closes
                prediction = item
                continue
            text += item.content_delta
            reasoning += item.reasoning_delta
            yield Partial(text, reasoning, real)
        if prediction is None:
            raise EngineRequestError("The engine ended its stream without a prediction.")
        results = score(session, prediction, real)
        step = PlayStep(canonical, real, prediction, tuple(Score(r.name, r.value) for r in results))
        yield Done(self._store(session, step, choice, owner, results))

    def _store(
        self,
        session: PlaySession,
        step: PlayStep,
        choice: EngineChoice,
        owner: str,
        results: list[MetricResult],
    ) -> PlaySession:
        """Commit `step` (and any recorded prefix not stored yet); branch when needed.

        A stored session fixes its engine settings and its steps, so a step taken after a rewind
        or with other settings goes to a branch of it, and the earlier session stays as it was.
        """
        session = self._ensure_stored(session, choice, owner)
        steps = list(session.steps)
        for i, prior in enumerate(steps):
            if prior.step_id is None:
                steps[i] = self._add(session.session_id, prior, choice)
        stored = self._add(session.session_id, step, choice, results)
        return replace(session, steps=(*steps, stored), stored_steps=len(steps) + 1)

    def _ensure_stored(self, session: PlaySession, choice: EngineChoice, owner: str) -> PlaySession:
        if session.session_id is None:
            trajectory = session.trajectory
            session_id = self.store.create_session(
                session.domain,
                choice.engine,
                choice.model,
                choice.params.model_dump(),
                choice.history_mode,
                base_trajectory_id=trajectory.id if trajectory else None,
                owner=owner,
                system_prompt=trajectory.system_prompt if trajectory else None,
                initial_state=session.initial_state,
                task=trajectory.task if trajectory else "",
            )
            return replace(session, session_id=session_id, settings_key=choice.key)
        if session.settings_key != choice.key or session.stored_steps != len(session.steps):
            return self.branch(session, len(session.steps), choice, owner)
        return session

    def _add(
        self,
        session_id: int | None,
        step: PlayStep,
        choice: EngineChoice,
        results: list[MetricResult] | None = None,
    ) -> PlayStep:
        record = self.store.add_step(
            session_id,  # type: ignore[arg-type]
            step.action,
            step.real,
            RECORDED if step.real is not None else None,
            step.prediction,
            results or [],
            params=choice.params.model_dump(),
        )
        return replace(step, step_id=record.step_id, prediction_id=record.prediction_id)

    def branch(
        self, session: PlaySession, at: int, choice: EngineChoice, owner: str
    ) -> PlaySession:
        """Keep the first `at` steps in a new stored session (the old one stays as it was)."""
        kept = session.rewound(at)
        if session.session_id is None or any(s.step_id is None for s in kept.steps):
            return kept
        session_id = self.store.branch_session(
            session.session_id,
            at,
            owner=owner,
            engine=choice.engine,
            model=choice.model,
            params=choice.params.model_dump(),
            history_mode=choice.history_mode,
        )
        return replace(kept, session_id=session_id, settings_key=choice.key, stored_steps=at)
