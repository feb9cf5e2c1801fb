"""The environment layer's own cost: CPU per sub-environment step against an instant engine.

N world-model environments per domain (the bundled recordings, the recorded actions replayed)
step with ONE `step_all` call a step, as the vector environment does, against a baseline engine
that answers at once. `near-miss` (the default, the hard case) predicts the real next state with
one value changed (`backend.scoring.adversaries.near_miss`): neither a copy of the previous state
nor the truth, so every metric does its full work; `persistence` copies the previous state (the
cheapest tree case: the match cache and `ObservationPair.predicted_tree` favour it); `oracle` is
the truth. An environment whose recording is used up is reset before the step, so every measured
step has a truth and is scored (the share is printed). Settings are a user's defaults (record
answers on), in a scratch data folder. What is left is the layer: action checks, prompt
building, output parsing, scoring, the reward and, recorded, the SQL. Each figure is the process
CPU time (`time.process_time`, all threads) of the measured steps divided by the sub-environment
steps, recorded (a scratch SQLite database) and unrecorded; SQL statements and commits per vector
step are counted on the database engine.

Usage: PYTHONPATH=. python benchmarks/bench_layer.py [--domains terminal web] [--sizes 16 256]
       [--steps 3] [--engines near-miss persistence] [--profile] [--json OUT] [--results]
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import json
import pstats
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import event

from app.context import AppContext
from app.settings import Settings
from backend.domains import BUILTIN
from backend.domains.base import get_domain
from backend.engines.base import ENGINES, EngineConfig, engine_spec
from backend.engines.baselines import BaselineEngine, reference_observation
from backend.envs.sim.episode import EnvOptions, EpisodeSpec
from backend.envs.sim.rewards import RewardOptions, build_reward
from backend.envs.sim.tasks import episode_specs
from backend.envs.sim.world import WorldEnv, step_all
from backend.scoring.adversaries import near_miss
from backend.spec import Purpose
from benchmarks.results import ResultsRun, Table, show

TARGET_MS = 5.0
NEAR_MISS = "near-miss"


def _near_miss(config: EngineConfig) -> BaselineEngine:
    return BaselineEngine(
        NEAR_MISS, lambda request: near_miss(reference_observation(request)), True
    )


# A benchmark-only baseline: the truth with one value changed, answered at once.
ENGINES.register(NEAR_MISS, dataclasses.replace(engine_spec("oracle"), build=_near_miss))


class SqlCounter:
    """Counts statements and commits on a SQLAlchemy engine."""

    def __init__(self, engine: Any) -> None:
        self.statements = 0
        self.commits = 0
        event.listen(engine, "before_cursor_execute", self._statement)
        event.listen(engine, "commit", self._commit)

    def _statement(self, *args: Any) -> None:
        self.statements += 1

    def _commit(self, *args: Any) -> None:
        self.commits += 1


def next_action(env: WorldEnv, spec: EpisodeSpec) -> str:
    """The recording's next action, resetting an environment whose recording is used up.

    A step past the recording has no truth and so no scores: the cheap case, not the one a
    trained model's rollout pays. Only a start with no recording at all falls back to the
    domain's example action.
    """
    turns = spec.trajectory.turns if spec.trajectory is not None else []
    if env.done or (turns and env.steps >= len(turns)):
        env.reset(spec)
    if env.steps < len(turns):
        return turns[env.steps].action
    return get_domain(spec.domain).example_action


def measure(
    context: AppContext, domain: str, n: int, steps: int, engine: str, record: bool
) -> dict[str, Any]:
    """CPU and wall time per sub-environment step of N environments of `domain`."""
    world = context.world_spec(Purpose.INTEGRATION, engine=engine, grounding=False)
    simulator = context.simulator(world)
    reward = build_reward("reference", RewardOptions())
    options = EnvOptions(max_steps=1_000, record=record)
    recorder = context.sessions if record else None
    starts = episode_specs(domain)
    specs = [starts[i % len(starts)] for i in range(n)]
    envs = [WorldEnv(simulator, reward, options, recorder) for _ in range(n)]
    for env, spec in zip(envs, specs, strict=True):
        env.reset(spec)
    counter = SqlCounter(context.database.engine)
    step_all(envs, [next_action(env, spec) for env, spec in zip(envs, specs, strict=True)])
    counter.statements = counter.commits = 0
    cpu = wall = 0.0
    scored = answered_from_record = 0
    for _ in range(steps):
        actions = [next_action(env, spec) for env, spec in zip(envs, specs, strict=True)]
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        results = step_all(envs, actions)
        cpu += time.process_time() - cpu_start
        wall += time.perf_counter() - wall_start
        scored += sum(1 for result in results if result.info.get("scores"))
        answered_from_record += sum(1 for r in results if r.info.get("answered_by") == "record")
    done = n * steps
    return {
        "domain": domain,
        "n": n,
        "record": record,
        "engine": engine,
        "cpu_ms_per_step": round(1000 * cpu / done, 3),
        "wall_ms_per_step": round(1000 * wall / done, 3),
        "sql_statements_per_vector_step": round(counter.statements / steps, 1),
        "commits_per_vector_step": round(counter.commits / steps, 1),
        "scored_share": round(scored / done, 3),
        "record_answered_share": round(answered_from_record / done, 3),
    }


def tables(rows: list[dict[str, Any]]) -> list[Table]:
    """One table per engine: recorded and unrecorded side by side, per domain and size."""
    out = []
    for engine in dict.fromkeys(row["engine"] for row in rows):
        mine = [row for row in rows if row["engine"] == engine]
        body = []
        for recorded, unrecorded in zip(mine[::2], mine[1::2], strict=True):
            body.append(
                [
                    recorded["domain"],
                    recorded["n"],
                    recorded["cpu_ms_per_step"],
                    unrecorded["cpu_ms_per_step"],
                    recorded["wall_ms_per_step"],
                    recorded["sql_statements_per_vector_step"],
                    recorded["commits_per_vector_step"],
                    unrecorded["sql_statements_per_vector_step"],
                    recorded["scored_share"],
                    recorded["record_answered_share"],
                ]
            )
        out.append(
            Table(
                f"Engine `{engine}`",
                [
                    "domain",
                    "N",
                    "CPU ms/step recorded",
                    "CPU ms/step unrecorded",
                    "wall ms/step recorded",
                    "SQL/vector step recorded",
                    "commits/vector step recorded",
                    "SQL/vector step unrecorded",
                    "scored share",
                    "answered from the record",
                ],
                body,
                f"CPU ms per sub-environment step (target < {TARGET_MS:g}); SQL statements and "
                "commits per vector step of N environments; record answers on (the default).",
            )
        )
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domains", nargs="+", default=list(BUILTIN))
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 256])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--engines", nargs="+", default=[NEAR_MISS, "persistence"])
    parser.add_argument("--profile", action="store_true", help="print the top functions")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--results", action="store_true", help="write docs/results/layer.*")
    options = parser.parse_args(argv)
    run = ResultsRun(
        "layer",
        "The environment layer: CPU and SQL per step",
        "N world-model environments per domain replay the bundled recordings through one "
        "`step_all` call a step against an instant baseline engine, so what is measured is the "
        "layer itself (action checks, prompts, parsing, scoring, reward and, recorded, SQLite). "
        "`near-miss` is the hard case: the truth with one value changed, neither a copy of the "
        "previous state nor the truth, every step scored (environments whose recording is used "
        "up are reset). `persistence` copies the previous state, the cheapest tree case. "
        "Settings are a user's defaults (record answers on).",
    )
    rows = []
    profiler = cProfile.Profile() if options.profile else None
    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(data_dir=Path(scratch), grounding=False)
        with AppContext(settings) as context:
            for engine in options.engines:
                for domain in options.domains:
                    for n in options.sizes:
                        for record in (True, False):
                            if profiler is not None:
                                profiler.enable()
                            row = measure(context, domain, n, options.steps, engine, record)
                            if profiler is not None:
                                profiler.disable()
                            rows.append(row)
                            print(json.dumps(row), flush=True)
    show(tables(rows))
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
    if options.json:
        options.json.write_text(json.dumps(rows, indent=2))
    if options.results:
        notes = [
            f"Sizes {options.sizes}, {options.steps} measured steps each (after one unmeasured "
            "step), every domain, both engines: about two minutes on two shared cores.",
            "Shares (scored, answered from the record) are of the recorded run's measured steps.",
            "Each figure is one run; compare rows of the same file (ratios), not files.",
        ]
        run.write(tables(rows), data=rows, notes=notes)


if __name__ == "__main__":
    main()
