"""The world-model environment: episodes whose next observation the world model predicts.

Every step goes through the one step path: the action is checked by `backend.simulate.canonical`,
predicted and scored by the batched `backend.stepping.step_batch` and stored by
`backend.stepping.record_prediction` (one stored session per episode, kind `rollout`, unless
recording is off). `step_all` steps many environments with ONE engine call, which is what the
vector environment and the rollout runner use; `WorldEnv.step` is that call for one. A live or
shadow episode also keeps its live trajectory as ground truth, like every other live run.

Four backings, one interface:
- `sim`: the world model answers; the agent sees the prediction;
- `live`: a live environment answers; nothing is predicted;
- `shadow`: the agent acts in the live environment while the world model predicts every step
  (teacher-forced on the live history), so each step's scores measure the model's fidelity on
  the states an agent actually visits;
- `hybrid`: the domain's routing policy (`Domain.hybrid`) picks who answers each action: an
  exact executor or the live environment runs it for real (nothing is predicted), the world
  model predicts the rest (which the live environment never runs), from a history whose exact
  steps are real. Every step stores who answered it (`answered_by`).

An invalid action never raises: the agent sees the domain's validation message, the step costs
`invalid_penalty`, and the world's state (its history) does not change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from backend.domains.base import get_domain
from backend.envs.live.run import LiveRun
from backend.envs.sim.episode import (
    INVALID_PREFIX,
    SESSION_KIND,
    EnvOptions,
    EpisodeSpec,
    StepResult,
)
from backend.envs.sim.rewards import RewardModel, StepView, Verdict
from backend.errors import BadActionError
from backend.grounding.fingerprint import recording_path
from backend.grounding.transitions import own_recording
from backend.provenance import Provenance
from backend.provenance import stored as stored_provenance
from backend.recording import (
    NewSession,
    Recorder,
    SessionTarget,
    StepInput,
    StepRecord,
    StoredScore,
    TrajectorySink,
)
from backend.simulate import Simulator, canonical
from backend.sources import live_answer, reference_provenance, turn_provenance
from backend.stepping import (
    Sample,
    Scores,
    exact_sample,
    observed,
    record_steps,
    routed,
    step_batch,
    step_input,
)
from backend.types import (
    AnsweredBy,
    Prediction,
    PromptContext,
    SimRequest,
    Turn,
)


@dataclass(frozen=True)
class Completed:
    """A finished step: what the agent gets back, and what to store (None: nothing)."""

    result: StepResult
    item: tuple[SessionTarget, StepInput] | None = None


@dataclass
class PendingStep:
    """A step between its check (and, live, its real run) and its prediction.

    `answered_by` is who answers the agent; `exact` the step's answer when reality gave it in
    hybrid backing (then nothing is predicted).
    """

    action: str
    request: SimRequest | None = None
    error: str = ""
    live_reward: float | None = None
    live_done: bool = False
    answered_by: AnsweredBy = "model"
    exact: Sample | None = None


class WorldEnv:
    """One episode at a time in one domain, over the world model (and a live environment).

    Args:
        simulator: the world model (shared by every environment of a vector environment).
        reward: the episode's reward model.
        options: backing, limits, recording.
        recorder: where episodes are stored (None: not stored).
        trajectories: where live and shadow episodes keep their live trajectory, the ground
            truth other runs compare with (None, or recording off: not kept).
    """

    def __init__(
        self,
        simulator: Simulator,
        reward: RewardModel,
        options: EnvOptions,
        recorder: Recorder | None = None,
        trajectories: TrajectorySink | None = None,
    ) -> None:
        self.simulator = simulator
        self.reward = reward
        self.options = options
        self.recorder = recorder if options.record else None
        self.trajectories = trajectories if options.record else None
        self.spec: EpisodeSpec | None = None
        self.context = PromptContext()
        self.initial_state: str | None = None
        self.turns: list[Turn] = []
        self.shown: list[Turn] = []
        self.steps = 0
        self.session_id: int | None = None
        self.live: LiveRun | None = None
        self._lease: str | None = None
        self._own_path: tuple[str, ...] = ()
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
        # the recording it follows, by content: grounding and the record never show it a step of it
        self._own_path = recording_path(spec.trajectory) if spec.trajectory is not None else ()
        self.context = spec.context.model_copy(update={"task": spec.task or spec.context.task})
        self.initial_state = spec.initial_state
        if self.options.backing != "sim":
            self.initial_state = self._live(spec).start(spec.live_task)
            live_context = self._live(spec).prompt_context()
            self.context = live_context.model_copy(update={"task": spec.task or live_context.task})
        self.turns, self.shown, self.steps = [], [], 0
        self.session_id, self.done = None, False
        self._keep_live()
        return self.initial_state or "", {"domain": spec.domain, "task": self.context.task or ""}

    def step(self, action: str) -> StepResult:
        """Take one action (see `step_all`)."""
        return step_all([self], [action])[0]

    def close(self) -> None:
        """Stop the live environment, if one runs, and give its place in the budget back."""
        if self.live is not None:
            self.live.close()
            self.live = None
        if self._lease is not None and self.options.live_pool is not None:
            self.options.live_pool.release(self._lease)
            self._lease = None

    def begin(self, action: str) -> PendingStep:
        """Check the action and, for live backings, run it for real; nothing is predicted yet."""
        spec = self._spec()
        if self.done:
            raise RuntimeError("step() after the episode ended: call reset() first")
        request = SimRequest(
            domain=spec.domain,
            system_prompt=spec.system_prompt,
            context=self.context,
            initial_state=self.initial_state,
            history=list(self.turns),
            action=action,
            history_mode=self.options.history_mode,
            params=spec.params(self.options.params),
            reference=self._recorded_reference(),
            reference_provenance=self._recorded_source(),
            grounding_exclude=self._own_recordings(),
            own_path=self._own_path,
        )
        try:
            request = canonical(request)
        except BadActionError as exc:
            return PendingStep(action, error=str(exc))
        backing = self.options.backing
        answerer = routed(request) if backing == "hybrid" else "live"
        if backing == "sim" or answerer == "model":
            return PendingStep(request.action, request)
        run = self._live(spec)
        live_step = run.act(request.action)
        source = live_answer(spec.domain, answerer, run.trajectory_id)
        request = observed(request, lambda _: live_step.observation, source)
        pending = PendingStep(
            request.action, request, "", live_step.reward, live_step.done, answerer
        )
        if backing == "hybrid":
            pending.exact = exact_sample(request, answerer, f"live:{spec.domain}")
        return pending

    def needs_prediction(self, pending: PendingStep) -> bool:
        """Whether the world model predicts this step (sim, shadow, hybrid's model steps)."""
        backing = self.options.backing
        return pending.request is not None and backing != "live" and pending.exact is None

    def doubts(self, sample: Sample) -> bool:
        """Whether hybrid's selective simulation sends this model step to the live environment.

        A prediction without a confidence is trusted: nothing says it is unsure.
        """
        confidence = sample.prediction.confidence if sample.prediction is not None else None
        hybrid = self.options.backing == "hybrid"
        return hybrid and confidence is not None and confidence < self.options.min_confidence

    def escalate(self, pending: PendingStep) -> Sample:
        """Answer a doubted step live instead: run it for real, `answered_by="live"`."""
        request = pending.request
        if request is None:
            raise RuntimeError("only a valid step is escalated")
        run = self._live(self._spec())
        live_step = run.act(request.action)
        source = live_answer(self.domain, "live", run.trajectory_id)
        pending.request = observed(request, lambda _: live_step.observation, source)
        pending.live_reward, pending.live_done = live_step.reward, live_step.done
        pending.answered_by = "live"
        pending.exact = exact_sample(pending.request, "live", f"live:{self.domain}")
        return pending.exact

    def view(self, pending: PendingStep, sample: Sample | None) -> StepView:
        """The finished step as the reward model sees it."""
        request = pending.request
        if request is None:
            return StepView(self.domain, self.context.task or "", self.shown)
        prediction = sample.prediction if sample is not None else None
        seen = self._seen(request, prediction)
        turns = [*self.shown, Turn(action=request.action, observation=seen)]
        return StepView(
            self.domain,
            self.context.task or "",
            turns,
            sample.scores.results if sample is not None else [],
            pending.live_reward,
            pending.live_done,
            last=self.steps + 1 >= self.options.max_steps,
        )

    def complete(
        self,
        pending: PendingStep,
        sample: Sample | None,
        view: StepView,
        verdict: Verdict | None,
    ) -> Completed:
        """Advance the episode, say what the agent gets back and what to store.

        Storing is left to the caller (`step_all` stores every environment's step in one
        transaction), which then calls `stored` with where the step went.
        """
        prediction = sample.prediction if sample is not None else None
        scores = sample.scores if sample is not None else Scores(self.domain)
        self.steps += 1
        truncated = self.steps >= self.options.max_steps
        request = pending.request
        if request is None:
            self.done = truncated
            message = INVALID_PREFIX + pending.error
            refused = {"validation_error": pending.error, "action": pending.action}
            result = StepResult(message, -self.options.invalid_penalty, False, truncated, refused)
            return Completed(result)
        if verdict is None:
            raise RuntimeError("a valid step is always assessed")
        seen = self._seen(request, prediction)
        real = request.reference if self.options.backing != "sim" else None
        self.turns.append(
            Turn(
                action=request.action,
                observation=real,
                predicted=prediction.observation if prediction is not None else None,
                provenance=reference_provenance(request) if real is not None else None,
            )
        )
        self.shown = list(view.turns)
        info, item = self._store(request, prediction, scores, verdict, pending.answered_by)
        finished = get_domain(self.domain).is_finish(request.action)
        terminated = finished or verdict.done
        self.done = terminated or truncated
        info["action"] = request.action
        info["verdict"] = verdict.details
        info["success"] = verdict.success
        info["finish_action"] = finished
        info["scores"] = {result.name: result.value for result in scores.results}
        info["reference"] = request.reference
        info["answered_by"] = pending.answered_by
        info["live_reward"] = pending.live_reward
        source = reference_provenance(request)
        info["reference_provenance"] = stored_provenance(source) if source is not None else None
        if prediction is not None:
            info["predicted_observation"] = prediction.observation
            if prediction.provenance is not None:
                info["provenance"] = stored_provenance(prediction.provenance)
        result = StepResult(seen, verdict.reward, terminated, truncated and not terminated, info)
        return Completed(result, item)

    def stored(self, completed: Completed, record: StepRecord | None) -> None:
        """Note where the step was stored (None: it was not), and keep the live trajectory.

        An episode that ended is marked so in storage; until then it reads incomplete.
        """
        if record is not None:
            self.session_id = record.session_id
            completed.result.info.update(session_id=record.session_id, step_id=record.step_id)
            self._keep_live()
        if self.done and self.session_id is not None and self.recorder is not None:
            self.recorder.end_session(self.session_id)

    def _store(
        self,
        request: SimRequest,
        prediction: Prediction | None,
        scores: Scores,
        verdict: Verdict,
        answered_by: AnsweredBy,
    ) -> tuple[dict[str, Any], tuple[SessionTarget, StepInput] | None]:
        """The step's info, and what to store (None when recording is off).

        The reward is stored as a `reward.<name>` score of the prediction, with its metrics.
        """
        info: dict[str, Any] = {}
        if prediction is not None:
            info.update(
                raw_completion=prediction.raw_text,
                reasoning=prediction.reasoning,
                prompt_tokens=prediction.prompt_tokens,
                completion_tokens=prediction.completion_tokens,
                latency_s=prediction.latency_s,
                finish_reason=prediction.finish_reason,
                grounded_by=prediction.grounded_by,
                history_dropped=prediction.history_dropped,
            )
        if self.recorder is None:
            return info, None
        # A live episode predicts nothing: its session names no world model's spec.
        world = None if self.options.backing == "live" else self.simulator.spec
        target = self.session_id or NewSession.for_request(
            request,
            SESSION_KIND,
            **self._engine_names(),
            **self._base(),
            complete=False,
            world=world,
        )
        reward = StoredScore(
            f"reward.{self.reward.name}",
            self.reward.version,
            verdict.reward,
            {**verdict.details, "done": verdict.done, "success": verdict.success},
        )
        return info, (target, step_input(request, prediction, scores, [reward], answered_by))

    def _keep_live(self) -> None:
        """Store the live run's trajectory as it now stands (live and shadow episodes)."""
        if self.trajectories is not None and self.live is not None:
            self.trajectories.upsert(self.live.trajectory())

    def _base(self) -> dict[str, str]:
        """A live or shadow episode's session starts from its live trajectory."""
        if self.trajectories is None or self.live is None:
            return {}
        return {"base_trajectory_id": self.live.trajectory_id}

    def _engine_names(self) -> dict[str, str]:
        """A live episode has no prediction to name its engine: it names the environment.

        A hybrid episode names its world model even when an exact step comes first.
        """
        if self.options.backing == "hybrid":
            return {"engine": self.simulator.engine.name, "model": self.simulator.engine.model}
        if self.options.backing != "live" or self.live is None:
            return {}
        return {"engine": "live", "model": f"live:{self.domain}"}

    def _seen(self, request: SimRequest, prediction: Prediction | None) -> str:
        """What the agent sees: reality when live or shadow, else the answer (model or exact)."""
        if self.options.backing in ("live", "shadow"):
            return request.reference or ""
        return prediction.observation if prediction is not None else ""

    def _own_recordings(self) -> tuple[str, ...]:
        """The recordings grounding must not show this episode: the one it follows, its live one."""
        spec = self._spec()
        return own_recording(
            spec.trajectory.id if spec.trajectory is not None else None,
            self.live.trajectory_id if self.live is not None else None,
        )

    def _recorded_reference(self) -> str | None:
        spec = self._spec()
        if self.options.backing != "sim" or spec.trajectory is None:
            return None
        index = len(self.turns)
        turns = spec.trajectory.turns
        return turns[index].observation if index < len(turns) else None

    def _recorded_source(self) -> Provenance | None:
        """Where `_recorded_reference` comes from: the followed recording's turn."""
        spec = self._spec()
        if self._recorded_reference() is None or spec.trajectory is None:
            return None
        return turn_provenance(spec.trajectory, len(self.turns))

    def _spec(self) -> EpisodeSpec:
        if self.spec is None:
            raise RuntimeError("reset() the environment before stepping it")
        return self.spec

    def _live(self, spec: EpisodeSpec) -> LiveRun:
        if self.live is None or self.live.domain != spec.domain:
            self.close()
            if self.options.live_config is None:
                raise ValueError("live and shadow backings need a live_config")
            pool = self.options.live_pool
            if pool is not None:  # refused, with how long to wait, when the budget is spent
                self._lease = pool.lease(self.options.live_owner)
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
    samples: list[Sample | None] = [pending.exact for pending in pendings]
    if asked:
        requests = [pendings[i].request for i in asked]
        made = step_batch(envs[asked[0]].simulator, [r for r in requests if r is not None])
        for i, (sample,) in zip(asked, made, strict=True):
            if sample.error is not None:
                raise sample.error  # an episode cannot go on without its world's answer
            samples[i] = envs[i].escalate(pendings[i]) if envs[i].doubts(sample) else sample
    views = [
        env.view(pending, samples[i])
        for i, (env, pending) in enumerate(zip(envs, pendings, strict=True))
    ]
    verdicts: list[Verdict | None] = [None] * len(envs)
    models: dict[int, list[int]] = {}
    for i, (env, pending) in enumerate(zip(envs, pendings, strict=True)):
        if pending.request is not None:
            models.setdefault(id(env.reward), []).append(i)
    for indices in models.values():
        assessed = envs[indices[0]].reward.assess([views[i] for i in indices])
        for i, verdict in zip(indices, assessed, strict=True):
            verdicts[i] = verdict
    completed = [
        env.complete(pending, samples[i], views[i], verdicts[i])
        for i, (env, pending) in enumerate(zip(envs, pendings, strict=True))
    ]
    records: list[StepRecord | None] = [None] * len(envs)
    recorders: dict[int, list[int]] = {}
    for i, (env, done) in enumerate(zip(envs, completed, strict=True)):
        if env.recorder is not None and done.item is not None:
            recorders.setdefault(id(env.recorder), []).append(i)
    for indices in recorders.values():
        items = [item for i in indices if (item := completed[i].item) is not None]
        recorder = envs[indices[0]].recorder
        if recorder is not None:
            for i, stored in zip(indices, record_steps(recorder, items), strict=True):
                records[i] = stored
    for env, done, where in zip(envs, completed, records, strict=True):
        env.stored(done, where)
    return [done.result for done in completed]
