"""The policy leaderboard and honesty meter of a world model on every live domain, measured here.

Runs five reference agents of known, different live success (the scripted solver, solvers of
two thirds and of one third of the tasks, the no-op `scripted:0`, and random valid actions) on
the checked tasks of terminal, swe and mcp with `awp rollout --sim-to-real`, one run per domain
(each task once per agent), in the world model you name (default persistence), then ranks the
agents on all the episodes together, as the leaderboard does per domain: Spearman's rank
correlation of sim against live success with its bootstrap 95% interval, per domain and
overall. Prints markdown tables; writes each domain's run folder and `leaderboard.png` (all
domains) under --out. Needs the live environments (bubblewrap, tmux, git, node for mcp).

Usage: PYTHONPATH=. python benchmarks/bench_sim_to_real.py [--engine persistence] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

AGENTS = ("scripted", "scripted:0.67", "scripted:0.33", "scripted:0", "random:1")
DOMAINS = ("terminal", "swe", "mcp")


def _cell(value: object) -> str:
    return (
        "undefined" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)
    )


def main() -> None:
    """Run each domain's rollout, then rank the agents over all of them."""
    from backend.envs.live.base import live_kind
    from backend.envs.sim.honesty import honesty_meter
    from backend.envs.sim.leaderboard import board_table, leaderboard
    from backend.envs.sim.leaderboard_plot import board_figure
    from backend.envs.sim.report import EpisodeRow

    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", default="persistence", help="The world model's engine.")
    parser.add_argument("--max-steps", default="2")
    parser.add_argument("--replays", default="1")
    parser.add_argument("--out", type=Path, default=Path("bench-sim-to-real"))
    args = parser.parse_args()
    rows: list[EpisodeRow] = []
    started = time.monotonic()
    for domain in DOMAINS:
        checked = [task for task in live_kind(domain).tasks() if task.check is not None]
        out = args.out / domain
        command = [
            sys.executable, "-m", "app", "rollout",
            "--agent", ",".join(AGENTS), "--engine", args.engine,
            "--domain", domain, "--tasks", "checked", "--episodes", str(len(checked)),
            "--max-steps", args.max_steps, "--sim-to-real", "--replays", args.replays,
            "--no-record", "--out", str(out),
        ]  # fmt: skip
        subprocess.run(command, check=True)
        lines = (out / "rollouts.jsonl").read_text(encoding="utf-8").splitlines()
        rows += [EpisodeRow.model_validate_json(line) for line in lines]
    elapsed = time.monotonic() - started
    board = leaderboard(rows)
    assert board is not None
    print("\n| domain | agent | episodes | sim success | live success | sim rank | live rank |")
    print("|---|---|--:|--:|--:|--:|--:|")
    for row in board_table(board):
        domain, agent, *figures = row
        print(f"| {domain} | `{agent}` | " + " | ".join(_cell(v) for v in figures) + " |")
    print("\n| domain | agents | Spearman | 95% low | 95% high |\n|---|--:|--:|--:|--:|")
    for a in board.agreement:
        print(
            f"| {a.domain} | {a.agents} | {_cell(a.spearman)} | {_cell(a.low)} | {_cell(a.high)} |"
        )
    meter = honesty_meter(rows)
    if meter is not None:
        overall = meter.overall
        print(f"\nhonesty meter, all {len(rows)} episodes: {json.dumps(overall.model_dump())}")
    board_figure(board).savefig(args.out / "leaderboard.png", dpi=110)
    print(f"wall time: {elapsed:.0f} s ({len(rows)} episodes)")


if __name__ == "__main__":
    main()
