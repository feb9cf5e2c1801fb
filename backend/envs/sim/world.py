"""The world-model environment: episodes whose next observation the world model predicts.

Every step goes through the one step path: the action is checked by `backend.simulate.canonical`,
predicted by `Simulator.step_batch` and scored and stored by `backend.stepping.record_prediction`
(one stored session per episode, kind `rollout`, unless recording is off). `step_all` steps
many environments with ONE engine call, which is what the vector environment and the rollout
runner use; `WorldEnv.step` is that call for one.

Three backings, one interface:
- `sim`: the world model answers; the agent sees the prediction;
- `live`: a live environment answers; nothing is predicted;
- `shadow`: the agent acts in the live environment while the world model predicts every step
  (teacher-forced on the live history), so each step's scores measure the model's fidelity on
  the states an agent actually visits.

An invalid action never raises: the agent sees the domain's validation message, the step costs
`invalid_penalty`, and the world's state (its history) does not change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from backend.envs.live.run import LiveRun
from backend.envs.sim.episode import (
    INVALID_PREFIX,
    SESSION_KIND,
    EnvOptions,
    EpisodeSpec,
    StepResult,
)
from backend.envs.sim.finish import is_finish
from backend.envs.sim.rewards import RewardModel, StepView, Verdict
from backend.errors import BadActionError
from backend.recording import NewSession, Recorder, StepInput, StoredScore
from backend.scoring import MetricResult
from backend.simulate import Simulator, canonical
from backend.stepping import observed, record_prediction, score
from backend.types import (
    Prediction,
    PromptContext,
    SimRequest,
    Turn,
)


@dataclass
class PendingStep:
    """A step between its check (and, live, its real run) and its prediction."""

    action: str
    request: SimRequest | None = None
    error: str = ""
    live_reward: float | None = None
    live_done: bool = False


class WorldEnv:
    """One episode at a time in one domain, over the world model (and a live environment).

    Args:
        simulator: the world model (shared by every environment of a vector environment).
        reward: the episode's reward model.
        options: backing, limits, recording.
        recorder: where episodes are stored (None: not stored).
    """

    def __init__(
        self,
        simulator: Simulator,
        reward: RewardModel,
        options: EnvOptions,
        recorder: Recorder | None = None,
    ) -> None:
        self.simulator = simulator
        self.reward = reward
        self.options = options
        self.recorder = recorder if options.record else None
        self.spec: EpisodeSpec | None = None
        self.context = PromptContext()
        self.initial_state: str | None = None
        self.turns: list[Turn] = []
        self.shown: list[Turn] = []
        self.steps = 0
        self.session_id: int | None = None
        self.live: LiveRun | None = None
        self.done = True

    @property
    def domain(self) -> str:
        """The current episode's domain."""
        return self._spec().domain

    def reset(self, spec: EpisodeSpec) -> tuple[str, dict[str, Any]]:
        """Start an episode; returns the first observation and the info dictionary.

        The first observation is the live environment's (live and shadow), else the recorded or
        given initial state, else blank.

        Raises:
            LiveEnvironmentError: the live environment could not start.
        """
        self.spec = spec
        self.context = spec.context.model_copy(update={"task": spec.task or spec.context.task})
        self.initial_state = spec.initial_state
        if self.options.backing != "sim":
            self.initial_state = self._live(spec).start(spec.live_task)
            live_context = self._live(spec).prompt_context()
            self.context = live_context.model_copy(update={"task": spec.task or live_context.task})
        self.turns, self.shown, self.steps = [], [], 0
        self.session_id, self.done = None, False
        return self.initial_state or "", {"domain": spec.domain, "task": self.context.task or ""}

    def step(self, action: str) -> StepResult:
        """Take one action (see `step_all`)."""
        return step_all([self], [action])[0]

    def close(self) -> None:
        """Stop the live environment, if one runs."""
        if self.live is not None:
            self.live.close()
            self.live = None

    def begin(self, action: str) -> PendingStep:
        """Check the action and, for live backings, run it for real; nothing is predicted yet."""
        spec = self._spec()
        if self.done:
            raise RuntimeError("step() after the episode ended: call reset() first")
        request = SimRequest(
            domain=spec.domain,
            context=self.context,
            initial_state=self.initial_state,
            history=list(self.turns),
            action=action,
            history_mode=self.options.history_mode,
            params=self.options.params,
            reference=self._recorded_reference(),
        )
        try:
            request = canonical(request)
        except BadActionError as exc:
            return PendingStep(action, error=str(exc))
        if self.options.backing == "sim":
            return PendingStep(request.action, request)
        live_step = self._live(spec).act(request.action)
        request = observed(request, lambda _: live_step.observation)
        return PendingStep(request.action, request, "", live_step.reward, live_step.done)

    def needs_prediction(self, pending: PendingStep) -> bool:
        """Whether the world model predicts this step (sim and shadow, valid actions)."""
        return pending.request is not None and self.options.backing != "live"

    def view(
        self, pending: PendingStep, prediction: Prediction | None
    ) -> tuple[StepView, list[MetricResult]]:
        """The finished step as the reward model sees it, and its scores."""
        request = pending.request
        if request is None:
            return StepView(self.domain, self.context.task or "", self.shown), []
        scores = score(request, prediction) if prediction is not None else []
        seen = self._seen(request, prediction)
        turns = [*self.shown, Turn(action=request.action, observation=seen)]
        view = StepView(
            self.domain,
            self.context.task or "",
            turns,
            scores,
            pending.live_reward,
            pending.live_done,
        )
        return view, scores

    def complete(
        self,
        pending: PendingStep,
        prediction: Prediction | None,
        view: StepView,
        scores: list[MetricResult],
        verdict: Verdict | None,
    ) -> StepResult:
        """Store the step, advance the episode and say what the agent gets back."""
        self.steps += 1
        truncated = self.steps >= self.options.max_steps
        request = pending.request
        if request is None:
            self.done = truncated
            message = INVALID_PREFIX + pending.error
            refused = {"validation_error": pending.error, "action": pending.action}
            return StepResult(message, -self.options.invalid_penalty, False, truncated, refused)
        if verdict is None:
            raise RuntimeError("a valid step is always assessed")
        seen = self._seen(request, prediction)
        real = request.reference if self.options.backing != "sim" else None
        self.turns.append(
            Turn(
                action=request.action,
                observation=real,
                predicted=prediction.observation if prediction is not None else None,
            )
        )
        self.shown = list(view.turns)
        info = self._store(request, prediction, scores, verdict)
        terminated = is_finish(self.domain, request.action) or verdict.done
        self.done = terminated or truncated
        info["action"] = request.action
        info["verdict"] = verdict.details
        info["success"] = verdict.success
        info["finish_action"] = is_finish(self.domain, request.action)
        info["scores"] = {result.name: result.value for result in scores}
        info["reference"] = request.reference
        if prediction is not None:
            info["predicted_observation"] = prediction.observation
        return StepResult(seen, verdict.reward, terminated, truncated and not terminated, info)

    def _store(
        self,
        request: SimRequest,
        prediction: Prediction | None,
        scores: list[MetricResult],
        verdict: Verdict,
    ) -> dict[str, Any]:
        info: dict[str, Any] = {}
        if prediction is not None:
            info.update(
                raw_completion=prediction.raw_text,
                reasoning=prediction.reasoning,
                prompt_tokens=prediction.prompt_tokens,
                completion_tokens=prediction.completion_tokens,
                latency_s=prediction.latency_s,
                finish_reason=prediction.finish_reason,
            )
        if self.recorder is None:
            return info
        target = self.session_id or NewSession.for_request(
            request, SESSION_KIND, **self._engine_names()
        )
        if prediction is None:
            step = StepInput(request.action, request.reference, request.reference_origin)
            record = self.recorder.record(target, step)
            self.session_id = record.session_id
            info.update(session_id=record.session_id, step_id=record.step_id)
            return info
        outcome = record_prediction(self.recorder, target, request, prediction, scores=scores)
        self.session_id = outcome.session_id
        stored = StoredScore(
            f"reward.{self.reward.name}",
            self.reward.version,
            verdict.reward,
            {**verdict.details, "done": verdict.done, "success": verdict.success},
        )
        self.recorder.add_scores(outcome.prediction_id, [stored])
        info.update(session_id=outcome.session_id, step_id=outcome.step_id)
        return info

    def _engine_names(self) -> dict[str, str]:
        """A live episode has no prediction to name its engine: it names the environment."""
        if self.options.backing != "live" or self.live is None:
            return {}
        return {"engine": "live", "model": f"live:{self.domain}"}

    def _seen(self, request: SimRequest, prediction: Prediction | None) -> str:
        """What the agent sees after the step: reality when live, else the prediction."""
        if self.options.backing != "sim":
            return request.reference or ""
        return prediction.observation if prediction is not None else ""

    def _recorded_reference(self) -> str | None:
        spec = self._spec()
        if self.options.backing != "sim" or spec.trajectory is None:
            return None
        index = len(self.turns)
        turns = spec.trajectory.turns
        return turns[index].observation if index < len(turns) else None

    def _spec(self) -> EpisodeSpec:
        if self.spec is None:
            raise RuntimeError("reset() the environment before stepping it")
        return self.spec

    def _live(self, spec: EpisodeSpec) -> LiveRun:
        if self.live is None or self.live.domain != spec.domain:
            self.close()
            if self.options.live_config is None:
                raise ValueError("live and shadow backings need a live_config")
            self.live = LiveRun(spec.domain, self.options.live_config)
        return self.live


def step_all(envs: Sequence[WorldEnv], actions: Sequence[str]) -> list[StepResult]:
    """Step many environments with one engine call for all their predictions.

    The environments share one simulator; each reward model assesses its steps in one call too.

    Args:
        envs: environments in running episodes (any domains).
        actions: one action per environment.
    """
    pendings = [env.begin(action) for env, action in zip(envs, actions, strict=True)]
    asked = [
        i for i, (env, p) in enumerate(zip(envs, pendings, strict=True)) if env.needs_prediction(p)
    ]
    predictions: list[Prediction | None] = [None] * len(envs)
    if asked:
        simulator = envs[asked[0]].simulator
        requests = [pendings[i].request for i in asked]
        made = simulator.step_batch([request for request in requests if request is not None])
        for i, prediction in zip(asked, made, strict=True):
            predictions[i] = prediction
    views = [
        env.view(p, predictions[i]) for i, (env, p) in enumerate(zip(envs, pendings, strict=True))
    ]
    verdicts: list[Verdict | None] = [None] * len(envs)
    models: dict[int, list[int]] = {}
    for i, (env, pending) in enumerate(zip(envs, pendings, strict=True)):
        if pending.request is not None:
            models.setdefault(id(env.reward), []).append(i)
    for indices in models.values():
        assessed = envs[indices[0]].reward.assess([views[i][0] for i in indices])
        for i, verdict in zip(indices, assessed, strict=True):
            verdicts[i] = verdict
    return [
        env.complete(pending, predictions[i], views[i][0], views[i][1], verdicts[i])
        for i, (env, pending) in enumerate(zip(envs, pendings, strict=True))
    ]
