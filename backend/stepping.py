"""The one step path: simulate, score against the truth, record; shared by every edge.

Two forms, one policy:
- `run_step` streams one step (`awp simulate`, the Playground and Replay pages);
- `step_batch` predicts N requests x K samples in ONE engine call and scores each prediction
  once (the benchmark and training evaluation, rollouts and the environments, the arena, many
  futures); `record_prediction` and `record_samples` store what it returns.

Every prediction is scored by `compare`, the one scoring policy: the domain's metrics, headline
first, and a truth the metrics cannot read leaves the prediction unscored (with the reason)
rather than losing it. So every stored prediction carries the same things: the canonical action,
the exact messages sent, its scores, and the session it belongs to, created only when its first
step commits. Both forms send a history too long for the engine's context without its oldest
turns, cut by the one history rule where the prompt is built (`Simulator.prepare_all`, through
`backend.history.fit_context`); each prediction says how many went (`history_dropped`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from backend.confidence import agreement
from backend.domains.base import get_domain
from backend.engines.base import capabilities_of
from backend.errors import (
    AWPError,
    BadInputError,
    EngineUnavailableError,
    JobCancelledError,
    LiveEnvironmentError,
)
from backend.history import state_before
from backend.provenance import Live
from backend.recording import (
    Recorder,
    ScoreLike,
    SessionTarget,
    StepInput,
    StepRecord,
    in_world,
)
from backend.scoring import MetricResult, headline_metric, score_observation
from backend.simulate import Simulator, canonical, exact_prediction
from backend.sources import live as live_source
from backend.sources import live_answer, own_run, reference_provenance
from backend.types import (
    AnsweredBy,
    Prediction,
    SimRequest,
    StreamChunk,
    Turn,
)

Reality = Callable[[str], str]
"""Runs a canonical action in a live environment and returns the real observation after it."""

logger = logging.getLogger(__name__)

MAX_SAMPLES = 8
"""The most predictions of one step a batched call samples."""


@dataclass(frozen=True)
class Scores:
    """A prediction's metrics against the truth, under its domain's one scoring policy.

    Attributes:
        domain: the domain whose metrics scored it.
        results: the metrics, headline first; empty when unscored.
        problem: why it is unscored although the truth is known (the truth cannot be read).
    """

    domain: str
    results: list[MetricResult] = field(default_factory=list)
    problem: str = ""

    @property
    def headline(self) -> float | None:
        """The domain's headline metric (None when unscored)."""
        name = headline_metric(self.domain)
        return next((result.value for result in self.results if result.name == name), None)


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
    scores: Scores
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


def compare(domain: str, predicted: str, reference: str, previous: str | None) -> Scores:
    """Score `predicted` against `reference`: the one scoring policy of every domain.

    A reference the metrics cannot read (or one too large to score) leaves the prediction
    unscored rather than losing it: the prediction is still worth showing and storing, and
    `problem` says why it has no scores.
    """
    try:
        results = score_observation(domain, predicted, reference, previous)
    except AWPError as exc:
        logger.warning("prediction left unscored: %s", exc)
        return Scores(domain, problem=f"scoring: {exc}")
    headline = headline_metric(domain)
    return Scores(domain, sorted(results, key=lambda result: result.name != headline))


def score(request: SimRequest, prediction: Prediction) -> Scores:
    """The prediction's scores against the request's reference (none when it is unknown)."""
    if request.reference is None:
        return Scores(request.domain)
    previous = state_before(request.history, request.initial_state)
    return compare(request.domain, prediction.observation, request.reference, previous)


@dataclass(frozen=True)
class Sample:
    """One prediction of a batched step, scored; or the engine's error for its request.

    Attributes:
        request: the request it answers (with the sample's own seed).
        prediction: the prediction (None when the engine failed for this request).
        scores: its scores (empty when it failed or the truth is unknown).
        error: why the engine made no prediction.
    """

    request: SimRequest
    prediction: Prediction | None
    scores: Scores
    error: AWPError | None = None

    def made(self) -> Prediction:
        """The prediction, or the engine's error raised again."""
        if self.prediction is None:
            raise self.error or RuntimeError("a sample holds a prediction or an error")
        return self.prediction


def sample_requests(request: SimRequest, k: int) -> list[SimRequest]:
    """K copies of a request, each with its own seed when one is set.

    With a fixed seed every copy would be the same sample; seed + i keeps the run reproducible
    and the samples different. Without a seed the engine's own randomness differs per copy.

    Raises:
        BadInputError: k outside 1..MAX_SAMPLES.
    """
    if not 1 <= k <= MAX_SAMPLES:
        raise BadInputError(f"Sample between 1 and {MAX_SAMPLES} futures, not {k}.")
    seed = request.params.seed
    if seed is None:
        return [request] * k
    return [
        request.model_copy(update={"params": request.params.model_copy(update={"seed": seed + i})})
        for i in range(k)
    ]


def step_batch(
    simulator: Simulator, requests: Sequence[SimRequest], samples: int = 1
) -> list[list[Sample]]:
    """Predict `samples` futures of each request in ONE engine call, and score each once.

    The engine sees the whole batch at once, so an engine with its own scheduler (vLLM, a
    server's continuous batching) fills it. A batch that fails is retried request by request,
    so one bad request (an invalid action, a prompt too long) costs only its own samples; an
    engine that cannot be reached at all fails every sample at once, without N more tries.
    Nothing is stored: `record_prediction` and `record_samples` store what the caller keeps.

    Returns:
        For each request, its samples in order.

    Raises:
        BadInputError: `samples` outside 1..MAX_SAMPLES.
    """
    flat = [copy for request in requests for copy in sample_requests(request, samples)]
    made: list[Prediction | AWPError]
    try:
        made = list(simulator.step_batch(flat))
    except EngineUnavailableError as exc:
        made = [exc] * len(flat)
    except JobCancelledError:
        raise  # the person stopped it: no request is tried again, none is stored
    except AWPError:
        made = []
        for request in flat:
            try:
                made.append(simulator.step(request))
            except AWPError as exc:
                made.append(exc)
    scored = [
        Sample(request, None, Scores(request.domain), result)
        if isinstance(result, AWPError)
        else Sample(request, result, score(request, result))
        for request, result in zip(flat, made, strict=True)
    ]
    return [agreed(scored[start : start + samples]) for start in range(0, len(scored), samples)]


def agreed(samples: list[Sample]) -> list[Sample]:
    """K samples of one step, each model prediction without a confidence given their agreement.

    An engine without log-probabilities still says how sure it is when asked K times: each
    sample's confidence is its mean headline similarity to the other samples (`agreement`).
    """
    made = [s for s in samples if s.prediction is not None and s.prediction.answered_by == "model"]
    if len(made) < 2 or all(s.made().confidence is not None for s in made):
        return samples
    request = made[0].request
    previous = state_before(request.history, request.initial_state)

    def similarity(predicted: str, other: str) -> float:
        return compare(request.domain, predicted, other, previous).headline or 0.0

    values = agreement([s.made().observation for s in made], similarity)
    given = {id(sample): value for sample, value in zip(made, values, strict=True)}
    out = []
    for sample in samples:
        prediction = sample.prediction
        if prediction is not None and prediction.confidence is None and id(sample) in given:
            confident = prediction.model_copy(update={"confidence": given[id(sample)]})
            sample = replace(sample, prediction=confident)
        out.append(sample)
    return out


def record_prediction(
    recorder: Recorder,
    target: SessionTarget,
    request: SimRequest,
    prediction: Prediction,
    prefix: Sequence[Turn] = (),
    scores: Scores | None = None,
    answered_by: AnsweredBy | None = None,
) -> StepOutcome:
    """Score a finished prediction and store it as the next step of `target`.

    Args:
        recorder: where steps are stored.
        target: a stored session's id, or a session to create with this step.
        request: the request the prediction answers (its reference is the step's real state).
        prediction: the prediction, carrying its canonical action and messages.
        prefix: earlier turns the session does not hold yet (a recorded start).
        scores: the prediction's scores when the caller already computed them (`score`).
        answered_by: who answered the step (default: the prediction's answerer).
    """
    scores = score(request, prediction) if scores is None else scores
    step = step_input(request, prediction, scores, answered_by=answered_by)
    return StepOutcome(request, prediction, scores, recorder.record(target, step, prefix))


def step_input(
    request: SimRequest,
    prediction: Prediction | None,
    scores: Scores,
    extra: Sequence[ScoreLike] = (),
    answered_by: AnsweredBy | None = None,
) -> StepInput:
    """What storing a step writes: its action, truth, prediction and scores (`extra` after them).

    The one description of a stored step, for `record_prediction` and for the batches of
    `record_steps`; a step without a prediction (a live step) stores the truth alone.
    `answered_by` defaults to the prediction's answerer, and to `live` without a prediction.
    """
    origin = request.reference_origin if request.reference is not None else None
    source = reference_provenance(request)
    if prediction is None:
        answerer = answered_by or "live"
        return StepInput(
            request.action, request.reference, origin, answered_by=answerer, provenance=source
        )
    return StepInput(
        action=prediction.action,
        real=request.reference,
        origin=origin,
        prediction=prediction,
        scores=[*scores.results, *extra],
        params=request.params,
        history_mode=request.history_mode,
        answered_by=answered_by or prediction.answered_by,
        provenance=source,
    )


def record_steps(
    recorder: Recorder, items: Sequence[tuple[SessionTarget, StepInput]]
) -> list[StepRecord]:
    """Store the steps of many sessions in one transaction (a vector environment's step).

    Built with `step_input`, so each is stored as `record_prediction` stores one; an empty
    batch touches nothing.
    """
    return recorder.record_many(items) if items else []


def record_samples(
    recorder: Recorder,
    target: SessionTarget,
    samples: Sequence[Sample],
    prefix: Sequence[Turn] = (),
) -> list[StepOutcome]:
    """Store K predictions of one step: the first makes the step, the others join it.

    How many futures of one state and an arena battle's two contenders are kept: one step,
    several predictions, each with its own sampling and scores.

    Raises:
        AWPError: a sample holds the engine's error instead of a prediction (nothing stored).
    """
    predictions = [sample.made() for sample in samples]
    first = samples[0]
    outcome = record_prediction(
        recorder, target, first.request, predictions[0], prefix, first.scores
    )
    outcomes = [outcome]
    for sample, prediction in zip(samples[1:], predictions[1:], strict=True):
        prediction_id = recorder.add_prediction(
            outcome.step_id,
            prediction,
            sample.scores.results,
            params=sample.request.params,
            history_mode=sample.request.history_mode,
        )
        record = replace(outcome.record, prediction_id=prediction_id)
        outcomes.append(StepOutcome(sample.request, prediction, sample.scores, record))
    return outcomes


def routed(request: SimRequest) -> AnsweredBy:
    """Who answers a (canonical) request in hybrid backing: its domain's policy says."""
    return get_domain(request.domain).hybrid.route(request.action, request.context)


def exact_sample(request: SimRequest, answered_by: AnsweredBy, source: str) -> Sample:
    """A step reality answered, as a batched step's sample, scored like any other.

    Raises:
        ValueError: the request carries no reference (the real answer) to answer with.
    """
    if request.reference is None:
        raise ValueError("an exact answer needs the request's reference")
    prediction = exact_prediction(
        request.action,
        request.reference,
        answered_by,
        source,
        provenance=reference_provenance(request),
    )
    return Sample(request, prediction, score(request, prediction))


def run_step(
    simulator: Simulator,
    recorder: Recorder,
    target: SessionTarget,
    request: SimRequest,
    prefix: Sequence[Turn] = (),
    live: Reality | None = None,
    hybrid: bool = False,
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
        hybrid: with `live`, the domain's routing policy (`routed`) decides who answers: an
            exact executor or the live environment runs the action for real (nothing is
            predicted), the model answers the rest without the live environment running it.

    Raises:
        BadActionError: the action does not follow the domain's format (nothing is sent).
        EngineUnavailableError, EngineRequestError: the engine failed.
    """
    target = in_world(target, simulator.spec)
    if live is None:
        for item in simulator.stream(request):
            if isinstance(item, Prediction):
                yield record_prediction(recorder, target, request, item, prefix)
            else:
                yield item
        return
    request = canonical(request)
    if hybrid:
        answerer = routed(request)
        if answerer == "model":
            yield from run_step(simulator, recorder, target, request, prefix)
            return
        settled = observed(request, live, live_answer(request.domain, answerer, own_run(request)))
        real = settled.reference or ""
        exact = exact_prediction(
            settled.action,
            real,
            answerer,
            f"live:{request.domain}",
            provenance=settled.reference_provenance,
        )
        yield record_prediction(recorder, target, settled, exact, prefix)
        return
    if capabilities_of(simulator.engine).answers_with_reference:
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
            yield record_prediction(recorder, target, settled, item, prefix, answered_by="live")


def observed(request: SimRequest, live: Reality, source: Live | None = None) -> SimRequest:
    """The request with the live environment's observation after its action as the truth.

    `source` is where that observation comes from (default: a live run of the request's domain,
    the request's own recording its run).
    """
    return request.model_copy(
        update={
            "reference": live(request.action),
            "reference_origin": "live",
            "reference_provenance": source or live_source(request.domain, own_run(request)),
        }
    )
