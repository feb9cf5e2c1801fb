"""Live environments: start-up time, per-step overhead and the memory of idle terminals.

For each domain the script starts the environment several times (start-up: `start()` until the
first observation), then times steps and subtracts what the action itself asks for:

- terminal: `echo` with a 0.1 s duration; overhead = step wall time - 0.1 s (send-keys, the
  dead-pane check and capture-pane);
- swe: `bash true` and `str_replace_editor view` (each a one-shot sandboxed program);
- mcp: `get_current_time` on mcp-server-time (a JSON-RPC round trip through the sandbox).

Then it starts N terminals side by side and sums the proportional set size (PSS) of every
process of their sandbox uids (tmux server, bwrap, bash) plus what their tmpfs folders hold.
Closing is timed too (every process stopped, the tmpfs unmounted, the folder removed).
Needs root (one uid per sandbox), bubblewrap, tmux, and the mcp servers.

Usage: PYTHONPATH=. python benchmarks/bench_live.py [--runs 5] [--idle 8] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from backend.envs.live.base import LiveConfig, LiveEnvironment, live_kind
from backend.envs.live.procs import processes


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def keys(text: str, duration: float) -> str:
    return json.dumps([{"keystrokes": text, "duration": duration}])


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def median_ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1000, 1)


def measure(
    config: LiveConfig, domain: str, task: str, steps: dict[str, tuple[str, float]], runs: int
) -> dict[str, float]:
    """Median start-up and per-step overheads (ms) of one domain."""
    env = live_kind(domain).build(config)
    figures: dict[str, float] = {}
    try:
        starts, closes = [], []
        for _ in range(runs):
            starts.append(timed(lambda: env.start(task)))
            closes.append(timed(env.close))
        figures["start_ms"] = median_ms(starts)
        figures["close_ms"] = median_ms(closes)
        env.start(task)
        for name, (action, own) in steps.items():
            env.act(action)  # warm
            figures[f"{name}_overhead_ms"] = median_ms(
                [timed(lambda a=action: env.act(a)) - own for _ in range(runs * 4)]
            )
    finally:
        env.close()
    return figures


def pss_kib(pid: int) -> int:
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in text.splitlines() if line.startswith("Pss:")), 0)


def tmpfs_used(folder: Path) -> int:
    """Bytes in use on the session's tmpfs (its scratch folder is the mount point)."""
    stats = os.statvfs(folder)
    return (stats.f_blocks - stats.f_bfree) * stats.f_frsize


def idle_terminals(config: LiveConfig, count: int) -> dict[str, float]:
    """Memory of `count` idle terminals: PSS of their processes and their tmpfs pages."""
    envs: list[LiveEnvironment] = []
    try:
        for _ in range(count):
            env = live_kind("terminal").build(config)
            env.start()
            envs.append(env)
        time.sleep(1.0)
        sandboxes = [env._sandbox for env in envs]  # type: ignore[attr-defined]
        pids = [p.pid for box in sandboxes for p in processes(box.uid) if p.state != "Z"]
        pss = sum(pss_kib(pid) for pid in pids)
        tmpfs = sum(tmpfs_used(box.folder) for box in sandboxes)
        return {
            "terminals": count,
            "processes": len(pids),
            "pss_mib": round(pss / 1024, 1),
            "pss_mib_each": round(pss / 1024 / count, 2),
            "tmpfs_kib": round(tmpfs / 1024, 1),
        }
    finally:
        for env in envs:
            env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--idle", type=int, default=8)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    for domain in ("terminal", "swe", "mcp"):
        missing = live_kind(domain).missing()
        if missing:
            raise SystemExit(f"live {domain} cannot run here: {missing}")
    with tempfile.TemporaryDirectory() as work:
        config = LiveConfig(work_dir=Path(work))
        view = call("str_replace_editor", command="view", path="/testbed/wordfreq/counter.py")
        results = {
            "terminal": measure(
                config, "terminal", "shell", {"echo": (keys("echo hi\n", 0.1), 0.1)}, args.runs
            ),
            "swe": measure(
                config,
                "swe",
                "wordfreq",
                {"bash_true": (call("bash", command="true"), 0.0), "editor_view": (view, 0.0)},
                args.runs,
            ),
            "mcp": measure(
                config,
                "mcp",
                "time",
                {"get_current_time": (call("get_current_time", timezone="UTC"), 0.0)},
                args.runs,
            ),
            "idle": idle_terminals(config, args.idle),
        }
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
