"""The record's cost per batched step: its freshness is checked once per batch, not per step.

Real SQLite through the composition root, the `persistence` engine, N world-model environments
stepped together (`step_all`, as the vector environment does) with record answers on and
nothing stored: every statement counted is the record's own.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event

from app.context import AppContext
from backend.data.bundled import load_bundled
from backend.envs.sim.episode import EnvOptions, EpisodeSpec
from backend.envs.sim.rewards import RewardOptions, build_reward
from backend.envs.sim.world import WorldEnv, step_all
from backend.spec import Purpose


def statements_per_step(context: AppContext, n: int) -> tuple[int, int]:
    """(SQL statements, commits) of one batched step of `n` terminal environments."""
    world = context.world_spec(
        Purpose.ROLLOUT, engine="persistence", grounding=False, record_answers=True
    )
    simulator = context.simulator(world)
    reward = build_reward("reference", RewardOptions())
    recordings = [t for t in load_bundled() if t.domain == "terminal"]
    envs = [WorldEnv(simulator, reward, EnvOptions(max_steps=100, record=False)) for _ in range(n)]
    specs = [EpisodeSpec.from_trajectory(recordings[i % len(recordings)]) for i in range(n)]
    for env, spec in zip(envs, specs, strict=True):
        env.reset(spec)

    def actions(step: int) -> list[str]:
        return [spec.trajectory.turns[step].action for spec in specs if spec.trajectory]

    step_all(envs, actions(0))  # the record's first build is not a step's cost
    counts = {"statements": 0, "commits": 0}

    def statement(*_: Any) -> None:
        counts["statements"] += 1

    def commit(*_: Any) -> None:
        counts["commits"] += 1

    engine = context.database.engine
    event.listen(engine, "before_cursor_execute", statement)
    event.listen(engine, "commit", commit)
    try:
        step_all(envs, actions(1))
    finally:
        event.remove(engine, "before_cursor_execute", statement)
        event.remove(engine, "commit", commit)
    return counts["statements"], counts["commits"]


def test_record_answers_cost_the_same_statements_per_batched_step_whatever_n(
    awp_context: AppContext,
) -> None:
    awp_context.trajectories.upsert_many(load_bundled())
    small = statements_per_step(awp_context, 2)
    large = statements_per_step(awp_context, 24)
    assert small == large
    statements, commits = large
    assert statements <= 3 and commits <= 1  # one freshness check: two counts, one transaction
