"""The GRPO recipe of an agent in the world model, measured live before and after on held-out tasks.

Splits the six checked terminal tasks by name: the first three train, the last three are held
out. Measures the base agent on the held-out tasks with `awp rollout --sim-to-real` (its actions
replayed live, the live check deciding success), trains it with `awp train-agent` on the
training tasks in the world model (reward: the predicted check), measures the trained agent the
same way, and prints live success before and after, paired by episode (same start, same agent
seed), with the percentile-bootstrap 95% interval of the mean paired gain, and the honesty meter
of the trained policy. Each episode is one action, then `[]` (the check).

Usage: PYTHONPATH=. python benchmarks/bench_agent_grpo.py [--engine persistence] [--base DIR]
    [--steps 4] [--repeats 2] [--out DIR]   (AWP_DATA_DIR set to a scratch folder)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path


def _tasks(path: Path, names: list[str], goals: dict[str, str]) -> Path:
    lines = [json.dumps({"domain": "terminal", "task": goals[n], "live_task": n}) for n in names]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _measure(agent: str, tasks: Path, episodes: int, engine: str, out: Path) -> list[dict]:
    command = [
        sys.executable, "-m", "app", "rollout", "--agent", agent, "--engine", engine,
        "--domain", "terminal", "--tasks", str(tasks), "--episodes", str(episodes),
        "--max-steps", "1", "--sim-to-real", "--agent-max-new-tokens", "48",
        "--no-record", "--out", str(out),
    ]  # fmt: skip
    subprocess.run(command, check=True)
    return [json.loads(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]


def main() -> None:
    """Measure, train, measure again; print the paired gain and the trained policy's meter."""
    from backend.benchmark.intervals import domain_intervals
    from backend.envs.live.base import live_kind

    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", default="persistence", help="The world model's engine.")
    parser.add_argument("--base", help="The agent's model folder (default: the embedded model).")
    parser.add_argument("--steps", default="4")
    parser.add_argument("--repeats", type=int, default=2, help="Episodes per held-out task.")
    parser.add_argument("--temperature", default="0.7", help="The agent's sampling (@T).")
    parser.add_argument("--out", type=Path, default=Path("bench-agent-grpo"))
    args = parser.parse_args()
    checked = sorted(t.name for t in live_kind("terminal").tasks() if t.check is not None)
    goals = {t.name: t.goal for t in live_kind("terminal").tasks()}
    train, held = checked[: len(checked) // 2], checked[len(checked) // 2 :]
    args.out.mkdir(parents=True, exist_ok=True)
    train_file = _tasks(args.out / "train.jsonl", train, goals)
    held_file = _tasks(args.out / "heldout.jsonl", held, goals)
    episodes = len(held) * args.repeats
    run = args.out / "run"
    started = time.monotonic()
    command = [
        sys.executable, "-m", "app", "train-agent", "--out", str(run), "--engine", args.engine,
        "--tasks", str(train_file), "--steps", args.steps,
        *(["--base", args.base] if args.base else []),
    ]  # fmt: skip
    subprocess.run(command, check=True)
    trained = json.loads((run / "agent_grpo.json").read_text())
    base = trained["base"]
    at = f"@{args.temperature}"
    before = _measure(base + at, held_file, episodes, args.engine, args.out / "before")
    after = _measure(
        trained["model_dir"] + at, held_file, episodes, args.engine, args.out / "after"
    )
    pairs = [
        (b["start"], float(b["real_success"]), float(a["real_success"]))
        for b, a in zip(before, after, strict=True)
        if b["real_success"] is not None and a["real_success"] is not None
    ]
    gains = [a - b for _, b, a in pairs]
    intervals, _, _ = domain_intervals({"terminal": gains})
    low, high = intervals.get("terminal", (None, None))
    print(f"\ntrain tasks: {', '.join(train)}; held-out tasks: {', '.join(held)}")
    print(f"training: {trained['steps']} steps, rewards {trained['rewards']}")
    print("\n| held-out task | episodes | live success before | live success after |")
    print("|---|--:|--:|--:|")
    for task in held:
        mine = [(b, a) for start, b, a in pairs if start == task]
        b_rate = sum(b for b, _ in mine) / len(mine) if mine else None
        a_rate = sum(a for _, a in mine) / len(mine) if mine else None
        print(f"| {task} | {len(mine)} | {b_rate} | {a_rate} |")
    mean = sum(gains) / len(gains) if gains else None
    print(f"\npaired gain: {mean} over {len(gains)} pairs, 95% interval [{low}, {high}]")
    meter = json.loads((args.out / "after" / "summary.json").read_text())["honesty"]
    print(f"honesty meter of the trained policy: {json.dumps(meter['overall'])}")
    print(f"wall time: {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
