"""The honesty meter and the policy leaderboard of a world model, measured on this machine.

Runs five agents (the scripted solver, random valid actions at two seeds, and the agent engine
at temperatures 0 and 1) on the six checked terminal tasks with `--sim-to-real` and `--replays`,
in the world model you name (default: the embedded model through the transformers engine), and
prints the meter, the leaderboard and the rank agreement as `awp rollout` does, with
`rollouts.jsonl`, `summary.json`, `honesty.png` and `leaderboard.png` in the output folder.
Needs the live terminal environment (bubblewrap, tmux).

Usage: PYTHONPATH=. python benchmarks/bench_sim_to_real.py [--engine persistence] [--out DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time


def main() -> None:
    """Run the rollout and report its wall time."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", default="transformers", help="The world model's engine.")
    parser.add_argument("--agent-engine", default="transformers", help="The agents' engine.")
    parser.add_argument("--max-steps", default="2")
    parser.add_argument("--replays", default="3")
    parser.add_argument("--out", default="bench-sim-to-real")
    args = parser.parse_args()
    agents = ",".join(
        ["scripted", "random:1", "random:2", f"{args.agent_engine}@0", f"{args.agent_engine}@1"]
    )
    command = [
        sys.executable, "-m", "app", "rollout",
        "--agent", agents, "--engine", args.engine,
        "--domain", "terminal", "--tasks", "checked", "--episodes", "6",
        "--max-steps", args.max_steps, "--sim-to-real", "--replays", args.replays,
        "--max-new-tokens", "96", "--agent-max-new-tokens", "48", "--no-record",
        "--out", args.out,
    ]  # fmt: skip
    started = time.monotonic()
    subprocess.run(command, check=True)
    print(f"wall time: {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
