"""The Rollouts page's service: run a small rollout over the app's engines and sessions.

The page runs what `awp rollout` runs (`backend.envs.sim.rollout.RolloutRunner`), so its
episodes are the same `rollout` sessions, reaching Replay and Annotate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from backend.engines.base import BASELINES
from backend.envs.sim.agents import Agent, EngineAgent, ReplayAgent
from backend.envs.sim.episode import EnvOptions, backing_named
from backend.envs.sim.report import EpisodeRow, Summary, summarize
from backend.envs.sim.rewards import RewardOptions, build_reward
from backend.envs.sim.rollout import RolloutConfig, RolloutRunner
from backend.envs.sim.tasks import episode_specs
from backend.errors import BadInputError
from ui.services import Services
from ui.users import User

REPLAY = "replay"
MAX_EPISODES = 8
AGENT_TOKENS = 96


@dataclass(frozen=True)
class RolloutRequest:
    """What the page asks for.

    Attributes:
        domain: the episodes' domain (bundled recordings are the starts).
        agent: `replay` or an engine name.
        engine: the world model's engine.
        episodes: how many episodes (at most `MAX_EPISODES`).
        max_steps: steps before truncation.
        env: sim, or shadow (the agent acts live while the model predicts).
    """

    domain: str
    agent: str
    engine: str
    episodes: int
    max_steps: int
    env: str


class Rollouts:
    """Runs rollouts for the page.

    Args:
        services: the app's services (engines, the recorder, the live pool's limits).
    """

    def __init__(self, services: Services) -> None:
        self.services = services

    def run(
        self, user: User, request: RolloutRequest, progress: Callable[[EpisodeRow], None]
    ) -> tuple[list[EpisodeRow], Summary]:
        """Run the episodes; each is stored as a `rollout` session.

        Raises:
            BadInputError: too many episodes, an unknown choice, or shadow without live
                environments on this server.
        """
        if not 1 <= request.episodes <= MAX_EPISODES:
            raise BadInputError(f"Run between 1 and {MAX_EPISODES} episodes here.")
        backing = backing_named(request.env)
        if backing == "live":
            raise BadInputError("The page runs sim or shadow episodes.")
        pool = self.services.live
        if backing == "shadow" and pool is None:
            raise BadInputError("Live environments are switched off on this server.")
        defaults = self.services.defaults
        simulator = self.services.simulator(request.engine, None, None)
        options = EnvOptions(
            backing=backing,
            max_steps=request.max_steps,
            params=defaults.params,
            history_mode=defaults.history_mode,
            live_config=pool.config if pool is not None else None,
        )
        reward = build_reward("reference", RewardOptions())
        runner = RolloutRunner(simulator, reward, options, self.services.sessions)
        agent = self._agent(request.agent)
        config = RolloutConfig(episodes=request.episodes, batch=request.episodes)
        rows = runner.run(agent, episode_specs(request.domain), config, progress)
        world = f"{simulator.engine.name}:{simulator.engine.model}"
        return rows, summarize(rows, request.env, agent.name, world, "reference@1")

    def _agent(self, name: str) -> Agent:
        if name == REPLAY:
            return ReplayAgent()
        if name in BASELINES:
            raise BadInputError("A baseline cannot act as an agent: pick replay or a model.")
        params = self.services.defaults.params.model_copy(update={"max_new_tokens": AGENT_TOKENS})
        return EngineAgent(self.services.engine(name, None, None), params)
