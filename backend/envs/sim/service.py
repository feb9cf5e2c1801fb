"""The one rollout service: what `awp rollout` and the Rollouts page both run.

Both edges describe a rollout as a `RolloutPlan` and hand in the services they hold as
`RolloutParts`, so the reward model, the sampling, the batch size and the agent's budget are the
same wherever a rollout starts, unless the caller says otherwise. Recording the run is the
edges' storage wrapper (`storage.rollout_runs`); this module never sees the database.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backend.domains.prompts import PromptLibrary
from backend.engines.base import Engine, engine_spec
from backend.envs.live.base import LiveConfig
from backend.envs.live.pool import LivePool
from backend.envs.sim.agents import Agent, EngineAgent, ReplayAgent
from backend.envs.sim.baseline_agents import (
    RANDOM,
    SCRIPTED,
    RandomAgent,
    ScriptedAgent,
    scripted_share,
)
from backend.envs.sim.defaults import (
    AGENT_MAX_NEW_TOKENS,
    DEFAULT_BATCH,
    DEFAULT_MAX_STEPS,
    DEFAULT_REWARD,
    REPLAY,
)
from backend.envs.sim.episode import Backing, EnvOptions, EpisodeSpec
from backend.envs.sim.report import EpisodeRow, Summary, summarize
from backend.envs.sim.rewards import RewardModel, RewardOptions, build_reward
from backend.envs.sim.rollout import RolloutConfig, RolloutRunner
from backend.envs.sim.tasks import episode_specs
from backend.envs.sim.worlds import world_starts
from backend.errors import BadInputError
from backend.recording import Recorder, TrajectorySink
from backend.simulate import Simulator
from backend.spec import Purpose
from backend.types import HistoryMode, SamplingParams

EngineMaker = Callable[[str, str | None], Engine]
"""(engine name, model or None for the configured one) -> a (cached) engine."""


@dataclass(frozen=True)
class RolloutPlan:
    """What a rollout runs.

    Attributes:
        domains: the domains, each run `episodes` times.
        agent: `replay` (the recordings' actions), `random[:SEED]`, `scripted[:SHARE]` (the
            live tasks' solutions, on a share of them) or ENGINE[:MODEL][@TEMPERATURE];
            several, comma-separated, run one after the other on the same episodes and are
            ranked (the policy leaderboard).
        episodes: episodes per domain.
        tasks: `bundled`, `live`, `blank` or a JSONL file (`backend.envs.sim.tasks`).
        backing: sim, live, shadow or hybrid.
        max_steps: steps before truncation.
        reward: the reward model's registered name.
        judge: the task judge's engine (None: the world model's).
        batch: episodes stepped together.
        sim_to_real: replay each simulated episode live afterwards.
        agent_max_new_tokens: the agent's completion budget.
        replays: with sim_to_real, replays of each episode in simulation (replay variance).
        world: a world file (`backend.envs.sim.worlds`): the one start of every episode, its
            domain instead of `domains`, its prompt, seed and temperature.
    """

    domains: tuple[str, ...]
    agent: str
    episodes: int = 1
    tasks: str = "bundled"
    backing: Backing = "sim"
    max_steps: int = DEFAULT_MAX_STEPS
    reward: str = DEFAULT_REWARD
    judge: str | None = None
    batch: int = DEFAULT_BATCH
    sim_to_real: bool = False
    agent_max_new_tokens: int = AGENT_MAX_NEW_TOKENS
    world: str | None = None
    replays: int = 0

    @property
    def agents(self) -> list[str]:
        """The agents, each run on every episode (several: a policy leaderboard)."""
        return [name.strip() for name in self.agent.split(",") if name.strip()]

    @property
    def total(self) -> int:
        """Episodes in all."""
        return self.episodes * (1 if self.world else len(self.domains)) * len(self.agents)


@dataclass(frozen=True)
class RolloutParts:
    """The services a rollout runs on, from the edge's context.

    Attributes:
        world: the world model.
        engines: builds the agent's and the judge's engines.
        params: the world model's sampling (the agent's too, with its own budget).
        history_mode: what the world model sees of the episode so far.
        live_config: limits of live environments (None: none on this server).
        recorder: where episodes are stored as sessions (None: not stored).
        trajectories: where live, shadow and sim-to-real episodes keep their live trajectory
            (None: not kept).
        min_confidence: hybrid's selective simulation threshold (`EnvOptions.min_confidence`).
        live_pool: the one live budget of the process (`AppContext.live_pool`); None: none.
        live_owner: whose share of it the episodes use (None: the operator's).
    """

    world: Simulator
    engines: EngineMaker
    params: SamplingParams
    history_mode: HistoryMode
    live_config: LiveConfig | None
    recorder: Recorder | None
    trajectories: TrajectorySink | None
    min_confidence: float = 0.0
    live_pool: LivePool | None = None
    live_owner: str | None = None


@dataclass(frozen=True)
class RolloutOutcome:
    """Every episode (`rollouts.jsonl` rows) and the run's summary (`summary.json`)."""

    rows: list[EpisodeRow]
    summary: Summary


def rollout_world(plan: RolloutPlan) -> dict[str, Any]:
    """What a rollout asks of its world spec (`AppContext.world_spec`), the same on every edge.

    A sim-to-real run's live twins are stored as it goes: grounding on them, or answering from
    their record, would let the simulated side copy reality, so both are off there; elsewhere
    the settings decide. Hybrid backing routes by each domain's policy.
    """
    return {
        "purpose": Purpose.ROLLOUT,
        "grounding": False if plan.sim_to_real else None,
        "record_answers": False if plan.sim_to_real else None,
        "hybrid": plan.backing == "hybrid",
    }


def world_name(world: Simulator) -> str:
    """The world model as summaries and run records name it: ENGINE:MODEL."""
    return f"{world.engine.name}:{world.engine.model}"


def make_agent(name: str, engines: EngineMaker, params: SamplingParams) -> Agent:
    """The agent called `name`: replay, random, scripted, an engine, or a checkpoint folder.

    Names: `replay`, `random[:SEED]`, `scripted[:SHARE]`, ENGINE[:MODEL][@T], or a model folder (a
    trained checkpoint, served by the transformers engine), optionally `@T`. An engine agent
    acts with `params`, at temperature T when the name ends with `@T`.

    Raises:
        BadInputError: a baseline engine, which only copies or looks up states; a bad `@T`.
        UnknownNameError: no such engine.
    """
    if name == REPLAY:
        return ReplayAgent()
    if name.split(":")[0] == SCRIPTED:
        share = name.partition(":")[2]
        return ScriptedAgent(scripted_share(share) if share else 1.0)
    if name.split(":")[0] == RANDOM:
        seed = name.partition(":")[2]
        if seed and not seed.isdigit():
            raise BadInputError(f"random's seed must be a whole number, not {seed!r}.")
        return RandomAgent(int(seed or 0))
    name, at, temperature = name.partition("@")
    if at:
        try:
            params = params.model_copy(update={"temperature": float(temperature)})
        except ValueError:
            raise BadInputError(
                f"An agent's @temperature must be a number: {name}@{temperature}."
            ) from None
    if Path(name).is_dir():  # a trained checkpoint folder: the transformers engine serves it
        name = f"transformers:{name}"
    engine, _, model = name.partition(":")
    if engine_spec(engine).baseline:
        raise BadInputError("A baseline cannot act as an agent: pick replay or a model.")
    agent = EngineAgent(engines(engine, model or None), params)
    if at:
        agent.name = f"{agent.name}@{params.temperature:g}"
    return agent


def make_reward(plan: RolloutPlan, parts: RolloutParts) -> RewardModel:
    """The plan's reward model; a task judge runs on `plan.judge`, else on the world model."""
    judge = parts.engines(plan.judge, None) if plan.judge else parts.world.engine
    return build_reward(plan.reward, RewardOptions(judge=judge))


def starts(plan: RolloutPlan, prompts: PromptLibrary) -> list[list[EpisodeSpec]]:
    """Each domain's episode starts: the plan's world (warned of when unpinned), else its tasks.

    Raises:
        BadInputError: a bad world file or tasks source, or a world outside the plan's domains.
    """
    if plan.world is None:
        return [episode_specs(domain, plan.tasks) for domain in plan.domains]
    pinned = world_starts(plan.world, prompts)
    domain = pinned[0].domain
    if plan.domains and domain not in plan.domains:
        raise BadInputError(f"The world is in the {domain} domain, not {plan.domains[0]}.")
    return [pinned]


def run_rollouts(
    plan: RolloutPlan,
    parts: RolloutParts,
    progress: Callable[[EpisodeRow], None] = lambda row: None,
) -> RolloutOutcome:
    """Run the plan's episodes, domain after domain; `progress` hears of each one finished.

    Raises:
        BadInputError: an unknown backing, agent or tasks source, or no episode starts.
        UnknownNameError: an unknown engine or reward model.
        LiveEnvironmentError: a live environment failed.
    """
    reward = make_reward(plan, parts)
    options = EnvOptions(
        backing=plan.backing,
        max_steps=plan.max_steps,
        record=parts.recorder is not None,
        params=parts.params,
        history_mode=parts.history_mode,
        live_config=parts.live_config,
        min_confidence=parts.min_confidence,
        live_pool=parts.live_pool,
        live_owner=parts.live_owner,
    )
    runner = RolloutRunner(parts.world, reward, options, parts.recorder, parts.trajectories)
    budget = {"max_new_tokens": plan.agent_max_new_tokens}
    agents = [
        make_agent(name, parts.engines, parts.params.model_copy(update=budget))
        for name in plan.agents
    ]
    config = RolloutConfig(
        episodes=plan.episodes,
        batch=plan.batch,
        sim_to_real=plan.sim_to_real,
        replays=plan.replays,
    )
    rows: list[EpisodeRow] = []
    for agent in agents:
        for specs in starts(plan, parts.world.prompts):
            rows += runner.run(agent, specs, config, progress)
    reward_name = f"{reward.name}@{reward.version}"
    names = ",".join(agent.name for agent in agents)
    summary = summarize(
        rows, plan.backing, names, world_name(parts.world), reward_name, plan.replays
    )
    return RolloutOutcome(rows, summary)
