"""The Rollouts page's service: run a small rollout over the app's engines and sessions.

The page runs what `awp rollout` runs (`storage.rollout_runs.record_rollouts` over
`backend.envs.sim.service`), with the same defaults, so its episodes are the same `rollout`
sessions (reaching Replay and Annotate) and every run is listed from the run store.
"""

from __future__ import annotations

from dataclasses import dataclass

from backend.envs.sim.episode import Backing, backing_named
from backend.envs.sim.honesty import HonestyMeter
from backend.envs.sim.leaderboard import Leaderboard
from backend.envs.sim.report import Summary
from backend.envs.sim.service import RolloutOutcome, RolloutParts, RolloutPlan, rollout_world
from backend.errors import BadInputError
from storage.rollout_runs import record_rollouts
from storage.run_kinds import RolloutRun
from ui.services import Services
from ui.users import User

MAX_EPISODES = 8
PAST_HEADERS = ["run", "date", "domains", "agent", "world model", "env", "status", "episodes"]


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


def past_row(run: RolloutRun) -> list[str]:
    """One line of the past-runs table: what ran, how it ended, episodes done of asked."""
    return [
        str(run.id),
        run.created_at.strftime("%Y-%m-%d %H:%M"),
        ", ".join(run.domains),
        run.agent,
        run.world,
        run.env,
        run.status,
        f"{run.done}/{run.total}" if run.total else str(run.done),
    ]


class Rollouts:
    """Runs rollouts for the page and lists past ones.

    Args:
        services: the app's services (engines, the recorder, the run store, the live pool).
    """

    def __init__(self, services: Services) -> None:
        self.services = services

    def check(self, request: RolloutRequest) -> Backing:
        """Refuse a request that cannot run, before any job is started for it; its backing.

        Raises:
            BadInputError: too many episodes, an unknown environment, or shadow or hybrid
                without live environments on this server.
        """
        if not 1 <= request.episodes <= MAX_EPISODES:
            raise BadInputError(f"Run between 1 and {MAX_EPISODES} episodes here.")
        backing = backing_named(request.env)
        if backing == "live":
            raise BadInputError("The page runs sim, shadow or hybrid episodes.")
        if backing in ("shadow", "hybrid") and self.services.live is None:
            raise BadInputError("Live environments are switched off on this server.")
        return backing

    def run(self, user: User, request: RolloutRequest) -> RolloutOutcome:
        """Run the episodes under a run record; each is stored as a `rollout` session.

        Run as a job, its steps count towards the job's `steps` (`backend.envs.sim.rollout`).

        Raises:
            BadInputError: too many episodes, an unknown choice, or shadow or hybrid without live
                environments on this server.
            JobCancelledError: its job was cancelled (the run is recorded as interrupted).
        """
        backing = self.check(request)
        pool = self.services.live
        engines = self.services.engine
        plan = RolloutPlan(
            domains=(request.domain,),
            agent=request.agent,
            episodes=request.episodes,
            backing=backing,
            max_steps=request.max_steps,
        )
        world = self.services.world_spec(**rollout_world(plan), engine=request.engine)
        parts = RolloutParts(
            world=self.services.simulator(world),
            engines=lambda name, model: engines(name, model, None),
            params=world.sampling,
            history_mode=world.history_mode,
            live_config=pool.config if pool is not None else None,
            recorder=self.services.sessions,
            trajectories=self.services.trajectories,
            min_confidence=world.hybrid_min_confidence,
            live_pool=pool,
            live_owner=user.name,
        )
        return record_rollouts(self.services.runs, plan, parts, owner=user.name)

    def honesty(self, run_id: int) -> tuple[HonestyMeter | None, Leaderboard | None, str]:
        """A stored run's honesty meter and leaderboard (None where it has none), and its title.

        Raises:
            NotFoundError: no rollout run has that id.
            BadInputError: the run has not finished, so it has no summary yet.
        """
        run = self.services.runs.get(RolloutRun, run_id)
        if not run.results:
            raise BadInputError(f"Rollout run {run_id} is {run.status}: it has no summary yet.")
        summary = Summary.model_validate(run.results)
        title = (
            f"Run {run_id}: {summary.agent} in {summary.world_model}, {summary.episodes} episodes"
        )
        return summary.honesty, summary.leaderboard, title

    def listing(self) -> list[list[str]]:
        """Stored rollout runs, newest first, as rows of the past-runs table."""
        return [past_row(run) for run in self.services.runs.list_runs(RolloutRun)]
