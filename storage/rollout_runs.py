"""Rollouts recorded as runs: the one entry point of `awp rollout` and the Rollouts page.

`backend.envs.sim.service.run_rollouts` runs the episodes; this wraps it in the run lifecycle,
so every rollout is listed with its outcome, counts its episodes as they finish, and keeps its
`summary.json` once finished.
"""

from __future__ import annotations

from collections.abc import Callable

from backend.envs.sim.report import EpisodeRow
from backend.envs.sim.service import (
    RolloutOutcome,
    RolloutParts,
    RolloutPlan,
    run_rollouts,
    world_name,
)
from storage.run_kinds import RolloutRun
from storage.run_lifecycle import recorded
from storage.runs import RunStore


def record_rollouts(
    store: RunStore,
    plan: RolloutPlan,
    parts: RolloutParts,
    progress: Callable[[EpisodeRow], None] = lambda row: None,
    *,
    out_dir: str | None = None,
    owner: str | None = None,
) -> RolloutOutcome:
    """Run the plan under a run record; `progress` hears of each finished episode.

    Args:
        store: the run store.
        plan: what to run.
        parts: what it runs on.
        progress: told of each finished episode, after it is counted.
        out_dir: the folder its `rollouts.jsonl` and `summary.json` go to, if any.
        owner: who started it (None from the CLI).

    Raises:
        AWPError: what `run_rollouts` raises (the run is recorded as failed first).
    """
    spec = RolloutRun.new_spec(
        plan.domains,
        plan.agent,
        world_name(parts.world),
        plan.backing,
        plan.total,
        plan.reward,
        f"world:{plan.world}" if plan.world else plan.tasks,
        plan.max_steps,
        parts.world.spec,
    )
    with recorded(store, RolloutRun, spec, out_dir=out_dir, owner=owner) as run:
        finished: list[EpisodeRow] = []

        def advance(row: EpisodeRow) -> None:
            finished.append(row)
            run.progress(len(finished), plan.total)
            progress(row)

        outcome = run_rollouts(plan, parts, advance)
        run.conclude(outcome.summary.model_dump(mode="json"), done=len(outcome.rows))
    return outcome
