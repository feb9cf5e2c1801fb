"""Many futures from one Playground state: K samples of one action, or several candidate actions.

K samples are ONE batched `Simulator.step_batch` call and are stored as K predictions of one
step (`record_prediction` for the first, `add_prediction` for the others). Candidate actions
are one batched call too; each is stored as a one-step branch of its own. Either way the
futures live in `futures` sessions branching from the Playground session at its current step
(or, before anything is stored, starting with its recorded turns), so the session itself goes
on unchanged and every future can be found, annotated and exported like any step.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from backend.compare.futures import MAX_CANDIDATES, Spread, sample_requests, spread
from backend.errors import BadInputError
from backend.recording import NewSession
from backend.simulate import Simulator
from backend.stepping import record_prediction, score
from backend.types import Prediction, SimRequest, Turn
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
        requests = sample_requests(request, k)
        predictions = self._simulator(choice).step_batch(requests)
        target, prefix = self._target(session, choice, owner)
        sessions = self.services.sessions
        first = record_prediction(sessions, target, requests[0], predictions[0], prefix)
        futures = [self._future(requests[0], predictions[0], first.prediction_id, first.session_id)]
        for other, prediction in zip(requests[1:], predictions[1:], strict=True):
            results = score(other, prediction)
            prediction_id = sessions.add_prediction(
                first.step_id, prediction, results,
                params=other.params, history_mode=other.history_mode,
            )  # fmt: skip
            futures.append(self._future(other, prediction, prediction_id, first.session_id))
        previous = session.previous_observation()
        observations = [p.observation for p in predictions]
        summary = spread(session.domain, observations, request.reference, previous)
        return Futures(futures, previous, summary)

    def candidates(
        self, session: PlaySession, actions: list[str], choice: EngineChoice, owner: str
    ) -> Futures:
        """One prediction per candidate action (one batched call), each its own branch.

        Raises:
            BadInputError: no candidate, more than four, or an invalid one (named).
        """
        typed = [a for a in actions if a and a.strip()]
        if not typed:
            raise BadInputError("Type at least one candidate action.")
        if len(typed) > MAX_CANDIDATES:
            raise BadInputError(f"Compare at most {MAX_CANDIDATES} candidate actions.")
        requests: list[SimRequest] = []
        for number, action in enumerate(typed, start=1):
            problem = session.problem(action)
            if problem:
                raise BadInputError(f"Candidate {number}: {problem}")
            requests.append(session.request(action, choice.history_mode, choice.params))
        predictions = self._simulator(choice).step_batch(requests)
        futures = []
        for request, prediction in zip(requests, predictions, strict=True):
            target, prefix = self._target(session, choice, owner)
            stored = record_prediction(self.services.sessions, target, request, prediction, prefix)
            futures.append(self._future(request, prediction, stored.prediction_id,
                                        stored.session_id))  # fmt: skip
        return Futures(futures, session.previous_observation())

    def _simulator(self, choice: EngineChoice) -> Simulator:
        return self.services.simulator(choice.engine, choice.model or None, choice.base_url or None)

    @staticmethod
    def _future(request: SimRequest, prediction: Prediction, prediction_id: int,
                session_id: int) -> Future:  # fmt: skip
        scores = tuple(Score(r.name, r.value) for r in score(request, prediction))
        return Future(prediction.action, prediction, request.reference, scores, prediction_id,
                      session_id)  # fmt: skip

    @staticmethod
    def _target(
        session: PlaySession, choice: EngineChoice, owner: str
    ) -> tuple[NewSession, list[Turn]]:
        """A new `futures` session branching from the Playground session at its current step."""
        new = session.new_session(
            SessionKind.FUTURES.value, owner, choice.history_mode, choice.params
        )
        if session.session_id is None:
            return new, session.history()
        branch = replace(new, parent_session_id=session.session_id, branched_at=len(session.steps))
        return branch, []
