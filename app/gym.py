"""Gymnasium registration of the world-model environment: `awp/WorldModel-v0`.

Gymnasium 1.x no longer loads environments from package entry points, so the id is registered
when this module is imported, and Gymnasium imports it itself from a module-qualified id:
`gymnasium.make("app.gym:awp/WorldModel-v0", domain="terminal", engine="transformers")` needs no
import statement (nor does `gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`).
The factories build the services from the one Settings object (`AWP_*` variables), like `awp`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium

from app.context import AppContext, build_context
from app.gym_spread import SpreadVectorEnv
from app.settings import Settings
from backend.envs.live.pool import LivePool
from backend.envs.sim.episode import Backing, EnvOptions, EpisodeSpec
from backend.envs.sim.gym_env import WorldModelEnv, WorldModelVectorEnv
from backend.envs.sim.rewards import RewardModel, RewardOptions, build_reward
from backend.envs.sim.tasks import episode_specs
from backend.envs.sim.world import WorldEnv
from backend.envs.sim.worlds import world_starts
from backend.simulate import Simulator
from backend.spec import Purpose

ENV_ID = "awp/WorldModel-v0"


@dataclass(frozen=True)
class EnvArgs:
    """The keywords `gymnasium.make` / `make_vec` pass on.

    Attributes:
        domain: the domain; for a vector env a comma-separated list the sub-environments take
            in turn ("terminal,web,android").
        engine: the world model's engine (default: the settings').
        model: its model id.
        tasks: `bundled`, `blank`, `live` or a JSONL file (`backend.envs.sim.tasks`).
        reward: `reference`, `task_judge` or `live`.
        judge: the task judge's engine (default: the world model's).
        backing: sim, live, shadow or hybrid.
        max_steps: steps before truncation.
        record: store episodes as sessions.
        max_new_tokens: the world model's completion budget (default: the settings').
        world: a pinned world (a world file's path, or its mapping): every episode starts
            there, with its prompt, seed and temperature; `domain` and `tasks` are then unused.
    """

    domain: str = "terminal"
    engine: str | None = None
    model: str | None = None
    tasks: str = "bundled"
    reward: str = "reference"
    judge: str | None = None
    backing: Backing = "sim"
    max_steps: int = 10
    record: bool = True
    max_new_tokens: int | None = None
    world: str | dict[str, Any] | None = None


def env_options(
    settings: Settings,
    backing: Backing,
    max_steps: int,
    record: bool,
    live_pool: LivePool | None = None,
) -> EnvOptions:
    """Episode options from the settings (sampling, history mode, live limits).

    Args:
        settings: the process's settings.
        backing: sim, live, shadow or hybrid.
        max_steps: steps before truncation.
        record: store episodes as sessions.
        live_pool: the process's one live budget (`AppContext.live_pool`), which every live
            sandbox of these episodes takes a place of; None: unbounded.
    """
    return EnvOptions(
        backing=backing,
        max_steps=max_steps,
        record=record,
        params=settings.sampling(),
        history_mode=settings.history_mode,
        live_config=settings.live_config(),
        min_confidence=settings.hybrid_min_confidence,
        live_pool=live_pool,
    )


@dataclass
class WorldParts:
    """The services an environment is built from."""

    settings: Settings
    context: AppContext
    simulator: Simulator
    reward: RewardModel


def world_parts(
    engine: str | None,
    model: str | None,
    reward: str,
    judge: str | None,
    max_new_tokens: int | None = None,
    base_url: str | None = None,
) -> WorldParts:
    """Settings (with the world model's budget), the context, the world model and the reward.

    The task judge runs on `judge`, else on the world model's engine.
    """
    context = build_context(max_new_tokens=max_new_tokens or None)
    simulator = context.simulator(
        context.world_spec(Purpose.INTEGRATION, engine=engine, model=model, base_url=base_url)
    )
    judge_engine = context.engine(judge) if judge else simulator.engine
    return WorldParts(
        context.settings,
        context,
        simulator,
        build_reward(reward, RewardOptions(judge=judge_engine)),
    )


def _build(
    num_envs: int, args: EnvArgs
) -> tuple[AppContext, list[WorldEnv], list[list[EpisodeSpec]]]:
    parts = world_parts(args.engine, args.model, args.reward, args.judge, args.max_new_tokens)
    options = env_options(
        parts.settings, args.backing, args.max_steps, args.record, parts.context.live_pool
    )
    stores = parts.context.sessions, parts.context.trajectories  # used only when recording
    domains = [name.strip() for name in args.domain.split(",") if name.strip()]
    worlds = [WorldEnv(parts.simulator, parts.reward, options, *stores) for _ in range(num_envs)]
    if args.world is not None:
        pinned = world_starts(args.world, parts.simulator.prompts)
        specs = [pinned for _ in range(num_envs)]
    else:
        specs = [episode_specs(domains[i % len(domains)], args.tasks) for i in range(num_envs)]
    return parts.context, worlds, specs


def make_env(render_mode: str | None = None, **kwargs: Any) -> WorldModelEnv:
    """One world-model environment; `kwargs` are the fields of `EnvArgs`."""
    context, worlds, specs = _build(1, EnvArgs(**kwargs))
    return WorldModelEnv(worlds[0], specs[0], render_mode, on_close=context.close)


def make_vector_env(
    num_envs: int, render_mode: str | None = None, processes: int = 1, **kwargs: Any
) -> WorldModelVectorEnv | SpreadVectorEnv:
    """`num_envs` environments stepped with one engine call; `kwargs` are `EnvArgs` fields.

    With `processes` > 1 they are spread over that many worker processes
    (`app.gym_spread`), each stepping its share with one engine call.
    """
    if processes > 1:
        return SpreadVectorEnv(num_envs, processes, make_vector_env, **kwargs)
    context, worlds, specs = _build(num_envs, EnvArgs(**kwargs))
    return WorldModelVectorEnv(worlds, specs, on_close=context.close)


def register() -> None:
    """Register `awp/WorldModel-v0` with Gymnasium (once per process)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            ENV_ID,
            entry_point="app.gym:make_env",
            vector_entry_point="app.gym:make_vector_env",
        )


register()
