"""The environment layer's own cost: CPU per sub-environment step against an instant engine.

N world-model environments per domain (the bundled recordings, the recorded actions replayed)
step with ONE `step_all` call a step, as the vector environment does, against a baseline engine
that answers at once (`persistence` by default: a prediction that differs from the truth, so
scoring does real work; `oracle` is the cheap case). What is left is the layer: action checks,
prompt building, output parsing, scoring, the reward and, recorded, the SQL. Each figure is the
process CPU time (`time.process_time`, all threads) of the measured steps divided by the
sub-environment steps, recorded (a scratch SQLite database) and unrecorded; SQL statements and
commits per vector step are counted on the database engine.

Usage: PYTHONPATH=. python benchmarks/bench_layer.py [--domains terminal web] [--sizes 16 256]
       [--steps 3] [--engine persistence] [--profile] [--json OUT]
"""

from __future__ import annotations

import argparse
import cProfile
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
from backend.envs.sim.episode import EnvOptions, EpisodeSpec
from backend.envs.sim.rewards import RewardOptions, build_reward
from backend.envs.sim.tasks import episode_specs
from backend.envs.sim.world import WorldEnv, step_all
from backend.spec import Purpose

TARGET_MS = 5.0


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
    """The recording's next action, or the domain's example once the recording is used up."""
    turns = spec.trajectory.turns if spec.trajectory is not None else []
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
    for _ in range(steps):
        for env, spec in zip(envs, specs, strict=True):
            if env.done:
                env.reset(spec)
        actions = [next_action(env, spec) for env, spec in zip(envs, specs, strict=True)]
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        step_all(envs, actions)
        cpu += time.process_time() - cpu_start
        wall += time.perf_counter() - wall_start
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
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domains", nargs="+", default=list(BUILTIN))
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 256])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--engine", default="persistence")
    parser.add_argument("--profile", action="store_true", help="print the top functions")
    parser.add_argument("--json", type=Path)
    options = parser.parse_args(argv)
    rows = []
    profiler = cProfile.Profile() if options.profile else None
    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(data_dir=Path(scratch), grounding=False)
        with AppContext(settings) as context:
            for domain in options.domains:
                for n in options.sizes:
                    for record in (True, False):
                        if profiler is not None:
                            profiler.enable()
                        row = measure(context, domain, n, options.steps, options.engine, record)
                        if profiler is not None:
                            profiler.disable()
                        rows.append(row)
                        print(json.dumps(row), flush=True)
    print(f"\nCPU ms per sub-environment step (target < {TARGET_MS:g}), engine {options.engine}")
    print(
        f"{'domain':>9} {'N':>4} {'recorded':>9} {'unrecorded':>11} {'SQL/vector step':>16} "
        f"{'commits/vector step':>20}"
    )
    for recorded, unrecorded in zip(rows[::2], rows[1::2], strict=True):
        print(
            f"{recorded['domain']:>9} {recorded['n']:>4} {recorded['cpu_ms_per_step']:>9} "
            f"{unrecorded['cpu_ms_per_step']:>11} "
            f"{recorded['sql_statements_per_vector_step']:>16} "
            f"{recorded['commits_per_vector_step']:>20}"
        )
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
    if options.json:
        options.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
