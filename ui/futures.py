"""Many futures from one Playground state: K samples of one action, or several candidate actions.

K samples are ONE batched step (`backend.stepping.step_batch` with `samples=K`), each scored
once, and are stored as K predictions of one step (`record_samples`). Candidate actions are one
batched step too; each is stored as a one-step branch of its own. Either way the
futures live in `futures` sessions branching from the Playground session at its current step
(or, before anything is stored, starting with its recorded turns), so the session itself goes
on unchanged and every future can be found, annotated and exported like any step.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from backend.compare.futures import MAX_CANDIDATES, Spread, spread
from backend.errors import BadInputError
from backend.recording import NewSession
from backend.spec import Purpose, WorldSpec
from backend.stepping import StepOutcome, record_prediction, record_samples, step_batch
from backend.types import Prediction, Turn
from storage.models import SessionKind
from ui.services import EngineChoice, Services
from ui.session import PlaySession, Score


@dataclass(frozen=True)
class Future:
    """One predicted future, stored."""

    action: str
    prediction: Prediction
    real: str | None
    scores: tuple[Score, ...]
    prediction_id: int
    session_id: int


@dataclass(frozen=True)
class Futures:
    """What a futures run produced: the futures, and for K samples their spread."""

    futures: list[Future]
    previous: str | None
    spread: Spread | None = None


class FuturesService:
    """Samples and stores futures of a Playground session's next step.

    Args:
        services: the app's services.
    """

    def __init__(self, services: Services) -> None:
        self.services = services

    def samples(
        self, session: PlaySession, action: str, choice: EngineChoice, k: int, owner: str
    ) -> Futures:
        """K predictions of the same action in one batched call, stored as one step.

        Raises:
            BadActionError: the action does not follow the domain's format.
            BadInputError: k outside 1..8.
        """
        request = session.request(action, choice.history_mode, choice.params)
        world = self._world(choice)
        samples = step_batch(self.services.simulator(world), [request], samples=k)[0]
        target, prefix = self._target(session, choice, owner, world)
        outcomes = record_samples(self.services.sessions, target, samples, prefix)
        previous = session.previous_observation()
        summary = spread(session.domain, samples, previous)
        return Futures([self._future(outcome) for outcome in outcomes], previous, summary)

    def candidates(
        self, session: PlaySession, actions: list[str], choice: EngineChoice, owner: str
    ) -> Futures:
        """One prediction per candidate action (one batched call), each its own branch.

        Raises:
            BadInputError: no candidate, more than four, or an invalid one (named).
        """
        requests = [
            session.request(action, choice.history_mode, choice.params)
            for action in self.typed_candidates(session, actions)
        ]
        world = self._world(choice)
        simulator = self.services.simulator(world)
        samples = [sample for (sample,) in step_batch(simulator, requests)]
        predictions = [sample.made() for sample in samples]  # one failure stores nothing
        futures = []
        for sample, prediction in zip(samples, predictions, strict=True):
            target, prefix = self._target(session, choice, owner, world)
            stored = record_prediction(
                self.services.sessions, target, sample.request, prediction, prefix, sample.scores
            )
            futures.append(self._future(stored))
        return Futures(futures, session.previous_observation())

    @staticmethod
    def typed_candidates(session: PlaySession, actions: list[str]) -> list[str]:
        """The candidate actions typed, checked before any engine is asked.

        Raises:
            BadInputError: no candidate, more than four, or an invalid one (named).
        """
        typed = [a for a in actions if a and a.strip()]
        if not typed:
            raise BadInputError("Type at least one candidate action.")
        if len(typed) > MAX_CANDIDATES:
            raise BadInputError(f"Compare at most {MAX_CANDIDATES} candidate actions.")
        for number, action in enumerate(typed, start=1):
            problem = session.problem(action)
            if problem:
                raise BadInputError(f"Candidate {number}: {problem}")
        return typed

    def _world(self, choice: EngineChoice) -> WorldSpec:
        # Futures explore the Playground's state: the Playground's world, as `awp simulate`'s.
        return choice.world(self.services.world_spec, Purpose.PLAYGROUND)

    @staticmethod
    def _future(outcome: StepOutcome) -> Future:
        scores = tuple(Score(r.name, r.value) for r in outcome.scores.results)
        return Future(
            outcome.prediction.action,
            outcome.prediction,
            outcome.request.reference,
            scores,
            outcome.prediction_id,
            outcome.session_id,
        )

    @staticmethod
    def _target(
        session: PlaySession, choice: EngineChoice, owner: str, world: WorldSpec
    ) -> tuple[NewSession, list[Turn]]:
        """A new `futures` session branching from the Playground session at its current step."""
        new = session.new_session(
            SessionKind.FUTURES.value, owner, choice.history_mode, choice.params
        )
        new = replace(new, world=world)
        if session.session_id is None:
            return new, session.history()
        branch = replace(new, parent_session_id=session.session_id, branched_at=len(session.steps))
        return branch, []
