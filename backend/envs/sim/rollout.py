"""Agent rollouts: many episodes of an agent in the world model, a live environment, or both.

Episodes run in batches: each step asks the agent for every running episode's action in one
call and steps every environment with one world-model call (`step_all`). With `shadow` the
agent acts live while the world model predicts each step, and the step's headline score is the
world model's fidelity on the states the agent actually visits. With `sim_to_real` every
simulated episode's actions are replayed in the live environment afterwards: per-step divergence
(1 - headline score of the simulated observation against the real one) and whether the episode's
outcome agrees (success in simulation against success in reality, where the reward tells).
Run as a job (the Rollouts page), every batch step counts towards its `steps` and Cancel stops
the batch before its next step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from backend.domains.base import get_domain
from backend.envs.live.base import live_kind
from backend.envs.sim.agents import Agent, AgentView
from backend.envs.sim.check_action import CheckStep, predict_checks
from backend.envs.sim.episode import EnvOptions, EpisodeSpec, StepResult
from backend.envs.sim.episode_rows import EpisodeRow, StepRow
from backend.envs.sim.replays import replay_spread
from backend.envs.sim.rewards import RewardModel
from backend.envs.sim.world import WorldEnv, step_all
from backend.errors import BadInputError
from backend.jobs import count, raise_if_cancelled
from backend.recording import Recorder, TrajectorySink
from backend.scoring import headline_metric
from backend.simulate import Simulator
from backend.stepping import compare
from backend.types import Turn


@dataclass(frozen=True)
class RolloutConfig:
    """How a rollout runs.

    Attributes:
        episodes: episodes in all; episode i starts at start i modulo the number of starts.
        batch: episodes stepped together (one agent call and one world-model call a step).
        sim_to_real: replay each simulated episode's actions live afterwards (sim only), with
            the check-as-action predicted in simulation first.
        replays: with sim_to_real, replay each episode's actions this many times in simulation
            (replay variance).
    """

    episodes: int
    batch: int = 8
    sim_to_real: bool = False
    replays: int = 0


def _start_name(spec: EpisodeSpec) -> str:
    if spec.trajectory is not None:
        return spec.trajectory.id
    return spec.live_task or "blank"


def _end_action(spec: EpisodeSpec) -> str:
    """What ends an episode so its live check runs: the finish action, else the task's no-op."""
    finish = get_domain(spec.domain).finish
    if finish is not None and finish.action:
        return finish.action
    task = live_kind(spec.domain).task_named(spec.live_task)
    return task.no_op if task is not None else ""


@dataclass
class _Running:
    number: int
    spec: EpisodeSpec
    env: WorldEnv
    observation: str
    turns: list[Turn]
    rows: list[StepRow]
    agent_tokens: int = 0
    world_model_tokens: int = 0
    last: StepResult | None = None


@dataclass(frozen=True)
class RolloutRunner:
    """Runs an agent's episodes over one world model and reward model.

    Attributes:
        simulator: the world model.
        reward: the reward model of every episode.
        options: backing, limits, recording of each episode's environment.
        recorder: where episodes are stored (None: not stored).
        trajectories: where live, shadow and sim-to-real episodes keep their live trajectory.
    """

    simulator: Simulator
    reward: RewardModel
    options: EnvOptions
    recorder: Recorder | None = None
    trajectories: TrajectorySink | None = None

    def run(
        self,
        agent: Agent,
        specs: Sequence[EpisodeSpec],
        config: RolloutConfig,
        progress: Callable[[EpisodeRow], None] = lambda row: None,
    ) -> list[EpisodeRow]:
        """Run `config.episodes` episodes from `specs`; `progress` hears of each one finished.

        Raises:
            BadInputError: sim-to-real asked outside sim mode, or no episode starts.
            LiveEnvironmentError: a live environment failed.
            JobCancelledError: the job it runs for was cancelled (finished episodes stay stored).
        """
        if config.sim_to_real and self.options.backing != "sim":
            raise BadInputError("Sim-to-real replays simulated episodes: use it with --env sim.")
        if not specs:
            raise BadInputError("No episode starts to run.")
        starts = [specs[i % len(specs)] for i in range(config.episodes)]
        if config.sim_to_real:
            starts = [self.with_live_start(spec) for spec in starts]
        rows: list[EpisodeRow] = []
        for first in range(0, len(starts), config.batch):
            batch = list(enumerate(starts[first : first + config.batch], start=first))
            for row in self._run_batch(agent, batch, config.sim_to_real):
                if config.sim_to_real:
                    row = self._replay_live(row, starts[row.episode])
                    row = self._replay_sim(row, starts[row.episode], config.replays)
                rows.append(row)
                progress(row)
        return rows

    def _run_batch(
        self, agent: Agent, batch: list[tuple[int, EpisodeSpec]], check: bool = False
    ) -> list[EpisodeRow]:
        running = []
        for number, spec in batch:
            options = self._options_for(agent, spec)
            env = WorldEnv(self.simulator, self.reward, options, self.recorder, self.trajectories)
            observation, _ = env.reset(spec)
            running.append(_Running(number, spec, env, observation, [], []))
        active = list(running)
        try:
            while active:
                raise_if_cancelled()
                views = [AgentView(r.spec, r.turns, r.observation) for r in active]
                actions = agent.act(views)
                results = step_all([r.env for r in active], [a.action for a in actions])
                for run, action, result in zip(active, actions, results, strict=True):
                    self._advance(run, action.action, action.tokens, result)
                count(len(active), "steps")
                active = [r for r in active if not r.env.done]
            verdicts = self._checks(running) if check else [None] * len(running)
        finally:
            for run in running:
                run.env.close()
        return [
            self._row(agent, run).model_copy(update={"sim_check": verdict})
            for run, verdict in zip(running, verdicts, strict=True)
        ]

    def _checks(self, running: Sequence[_Running]) -> list[bool | None]:
        """Each finished episode's check, as the world model predicts it (one engine call)."""
        steps = [
            CheckStep(
                run.spec,
                run.env.turns,
                run.spec.params(self.options.params),
                self.options.history_mode,
            )
            for run in running
        ]
        return predict_checks(self.simulator, steps)

    def _replay_sim(self, row: EpisodeRow, start: EpisodeSpec, replays: int) -> EpisodeRow:
        """The episode's valid actions replayed `replays` times in simulation."""
        actions = [step.action for step in row.steps if not step.invalid]
        spread = replay_spread(self.simulator, self.reward, self.options, start, actions, replays)
        return row.model_copy(
            update={"replay_rewards": spread.rewards, "replay_fidelity": spread.fidelity}
        )

    def _options_for(self, agent: Agent, spec: EpisodeSpec) -> EnvOptions:
        """A replay agent's episode ends with its recording."""
        if agent.name != "replay" or spec.trajectory is None:
            return self.options
        steps = min(self.options.max_steps, len(spec.trajectory.turns))
        return replace(self.options, max_steps=steps)

    def _advance(self, run: _Running, action: str, tokens: int, result: StepResult) -> None:
        headline = headline_metric(run.spec.domain)
        invalid = "validation_error" in result.info
        run.rows.append(
            StepRow(
                action=result.info.get("action", action),
                observation=result.observation,
                reward=result.reward,
                fidelity=result.info.get("scores", {}).get(headline),
                predicted=result.info.get("predicted_observation"),
                reference=result.info.get("reference"),
                invalid=invalid,
                answered_by=result.info.get("answered_by"),
                provenance=result.info.get("provenance"),
                reference_provenance=result.info.get("reference_provenance"),
            )
        )
        run.turns.append(Turn(action=action, observation=result.observation))
        run.observation, run.last = result.observation, result
        run.agent_tokens += tokens
        run.world_model_tokens += result.info.get("prompt_tokens", 0)
        run.world_model_tokens += result.info.get("completion_tokens", 0)

    def _row(self, agent: Agent, run: _Running) -> EpisodeRow:
        last = run.last
        return EpisodeRow(
            episode=run.number,
            domain=run.spec.domain,
            start=_start_name(run.spec),
            task=run.env.context.task or "",
            env=self.options.backing,
            agent=agent.name,
            reward_model=f"{self.reward.name}@{self.reward.version}",
            steps=run.rows,
            total_reward=sum(step.reward for step in run.rows),
            success=last.info.get("success") if last is not None else None,
            terminated=last.terminated if last is not None else False,
            truncated=last.truncated if last is not None else False,
            world_model_tokens=run.world_model_tokens,
            agent_tokens=run.agent_tokens,
            session_id=run.env.session_id,
            world=run.spec.world,
        )

    def _live_env(self) -> WorldEnv:
        options = replace(self.options, backing="live", max_steps=10**6)
        return WorldEnv(self.simulator, self.reward, options, self.recorder, self.trajectories)

    def with_live_start(self, spec: EpisodeSpec) -> EpisodeSpec:
        """The spec with the live environment's start state, so sim and reality start alike."""
        if spec.initial_state is not None:
            return spec
        live = self._live_env()
        try:
            observation, _ = live.reset(spec)
        finally:
            live.close()
        return replace(spec, initial_state=observation, context=live.context)

    @staticmethod
    def _check_live(live: WorldEnv, start: EpisodeSpec, paid: list[float]) -> StepResult | None:
        """Run the live check of an episode that stopped short of its end action.

        The simulated check judges the state the episode ends in, finished or not, whatever
        its actions (the check is predicted after every episode); so does the real one. The
        episode gets its domain's finish action here (terminal `[]`, swe `submit`), where the
        domain has one that takes no arguments; else its task's no-op (`LiveTask.no_op`): mcp
        checks after every call, so a read runs the check of an episode whose every call the
        simulation refused (none is replayed). None: neither exists.
        """
        action = _end_action(start)
        if not action:
            return None
        result = live.step(action)
        if result.info.get("live_reward") is not None:
            paid.append(result.info["live_reward"])
        return result

    def _replay_live(self, row: EpisodeRow, start: EpisodeSpec) -> EpisodeRow:
        """Replay the simulated episode's valid actions live; divergence and outcome agreement."""
        spec = EpisodeSpec(domain=row.domain, task=row.task, live_task=start.live_task)
        live = self._live_env()
        steps: list[StepRow] = []
        result: StepResult | None = None
        paid: list[float] = []
        try:
            previous, _ = live.reset(spec)
            for step in row.steps:
                if step.invalid:
                    steps.append(step)
                    continue
                result = live.step(step.action)
                if result.info.get("live_reward") is not None:
                    paid.append(result.info["live_reward"])
                real = result.observation
                agreement = compare(row.domain, step.observation, real, previous).headline
                divergence = None if agreement is None else 1 - agreement
                steps.append(
                    step.model_copy(update={"divergence": divergence, "real_observation": real})
                )
                previous = real
            if not paid and not live.done:  # also when every action was invalid
                result = self._check_live(live, spec, paid) or result
        finally:
            live.close()
        real_success = result.info.get("success") if result is not None else None
        if real_success is None and paid:
            real_success = max(paid) > 0  # the live check ran (terminal at `[]`, swe at submit)
        agrees = None
        if row.success is not None and real_success is not None:
            agrees = row.success == real_success
        return row.model_copy(
            update={
                "steps": steps,
                "real_success": real_success,
                "real_reward": max(paid) if paid else None,
                "outcome_agrees": agrees,
                "real_session_id": live.session_id,
            }
        )
