"""The one step path: simulate, score against the truth, record; shared by every edge.

`awp simulate`, the Playground and Replay pages, `awp bench` and environments all take steps
through `run_step` (streamed) or `record_prediction` (after a batched `Simulator.step_batch`), so
every stored prediction carries the same things: the canonical action, the exact messages sent,
its scores, and the session it belongs to, created only when its first step commits.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from backend.errors import BadInputError, LiveEnvironmentError
from backend.history import state_before
from backend.recording import Recorder, SessionTarget, StepInput, StepRecord
from backend.scoring import MetricResult, headline_metric, score_observation
from backend.simulate import Simulator, canonical
from backend.types import Prediction, SimRequest, StreamChunk, Turn

Reality = Callable[[str], str]
"""Runs a canonical action in a live environment and returns the real observation after it."""

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class StepOutcome:
    """A stored step, with everything the edges show about it.

    Attributes:
        request: the request it answered, its reference the truth (a live one included).
        prediction: the prediction, with its canonical action and exact messages.
        scores: its metrics against the truth, headline first.
        record: where it was stored.
        live_error: why a live environment failed, if it did (the step is then unscored).
    """

    request: SimRequest
    prediction: Prediction
    scores: list[MetricResult]
    record: StepRecord
    live_error: str = ""

    @property
    def session_id(self) -> int:
        """The session the step was stored in (new when the step created it)."""
        return self.record.session_id

    @property
    def step_id(self) -> int:
        """The stored step's id."""
        return self.record.step_id

    @property
    def prediction_id(self) -> int:
        """The stored prediction's id (what annotations point at)."""
        if self.record.prediction_id is None:
            raise RuntimeError("a simulated step is always stored with its prediction")
        return self.record.prediction_id


def score(request: SimRequest, prediction: Prediction) -> list[MetricResult]:
    """The domain's metrics against the request's reference, headline first.

    Nothing when the real state is unknown. A reference the metrics cannot parse (or one too large
    to score) leaves the step unscored rather than losing it: the prediction is still worth
    showing and storing.
    """
    if request.reference is None:
        return []
    previous = state_before(request.history, request.initial_state)
    try:
        results = score_observation(
            request.domain, prediction.observation, request.reference, previous
        )
    except BadInputError:
        logger.warning("step left unscored: the reference cannot be scored", exc_info=True)
        return []
    headline = headline_metric(request.domain)
    return sorted(results, key=lambda result: result.name != headline)


def record_prediction(
    recorder: Recorder,
    target: SessionTarget,
    request: SimRequest,
    prediction: Prediction,
    prefix: Sequence[Turn] = (),
    scores: list[MetricResult] | None = None,
) -> StepOutcome:
    """Score a finished prediction and store it as the next step of `target`.

    Args:
        recorder: where steps are stored.
        target: a stored session's id, or a session to create with this step.
        request: the request the prediction answers (its reference is the step's real state).
        prediction: the prediction, carrying its canonical action and messages.
        prefix: earlier turns the session does not hold yet (a recorded start).
        scores: the prediction's scores when the caller already computed them (`score`).
    """
    scores = score(request, prediction) if scores is None else scores
    origin = request.reference_origin if request.reference is not None else None
    step = StepInput(
        action=prediction.action,
        real=request.reference,
        origin=origin,
        prediction=prediction,
        scores=scores,
        params=request.params,
        history_mode=request.history_mode,
    )
    return StepOutcome(request, prediction, scores, recorder.record(target, step, prefix))


def run_step(
    simulator: Simulator,
    recorder: Recorder,
    target: SessionTarget,
    request: SimRequest,
    prefix: Sequence[Turn] = (),
    live: Reality | None = None,
) -> Iterator[StreamChunk | StepOutcome]:
    """Stream a prediction, then score and store it; the stored outcome comes last.

    Nothing is stored when the action is refused or the engine fails.

    Args:
        simulator: the world model.
        recorder: where steps are stored.
        target: a stored session's id, or a session to create with this step.
        request: the step (its reference, when known before the step, is the truth).
        prefix: earlier turns the session does not hold yet (a recorded start).
        live: runs the action for real, while the model predicts (first, for an engine that
            answers with the truth, the oracle); its observation is the step's reference, origin
            `live`. If the live environment fails, the prediction is still stored, unscored,
            and the outcome says why in `live_error`.

    Raises:
        BadActionError: the action does not follow the domain's format (nothing is sent).
        EngineUnavailableError, EngineRequestError: the engine failed.
    """
    if live is None:
        for item in simulator.stream(request):
            if isinstance(item, Prediction):
                yield record_prediction(recorder, target, request, item, prefix)
            else:
                yield item
        return
    request = canonical(request)
    if getattr(simulator.engine, "answers_with_reference", False):
        yield from run_step(simulator, recorder, target, observed(request, live), prefix)
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="awp-live") as pool:
        pending = pool.submit(observed, request, live)
        for item in simulator.stream(request):
            if not isinstance(item, Prediction):
                yield item
                continue
            try:
                settled = pending.result()
            except LiveEnvironmentError as exc:
                outcome = record_prediction(recorder, target, request, item, prefix)
                yield replace(outcome, live_error=str(exc))
                return
            yield record_prediction(recorder, target, settled, item, prefix)


def observed(request: SimRequest, live: Reality) -> SimRequest:
    """The request with the live environment's observation after its action as the truth."""
    return request.model_copy(
        update={"reference": live(request.action), "reference_origin": "live"}
    )
