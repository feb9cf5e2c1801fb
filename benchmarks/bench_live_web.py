"""Live web environment: start-up, step and observation times, memory of one idle browser.

Cold start = the first `start` (Playwright driver, sandboxed Chromium, task page); warm start = a
new task in the running browser (fresh context). Steps alternate a checkbox click and a `fill` on
MiniWoB pages; each step includes the task check and the new observation. Memory is read from
/proc for this process's descendants, the environment idle after a start: the sandbox (bubblewrap,
Chromium and its crash handlers; RSS summed, and PSS, which shares common pages out fairly) and
the Playwright driver (node). Medians; the same run also times one observation alone, for the
ratio step/observation.

Usage: PYTHONPATH=. python benchmarks/bench_live_web.py [--steps 40] [--starts 8] [--json OUT]
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

from backend.envs.live.base import LiveConfig, live_kind
from tests.support.processes import descendants


def timed(call: Callable[[], object]) -> float:
    """Seconds one call takes."""
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def memory_mib(pids: list[int]) -> tuple[float, float]:
    """(summed RSS, summed PSS) of `pids` in MiB."""
    rss = pss = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            name, _, value = line.partition(":")
            if name == "Rss":
                rss += int(value.split()[0])
            elif name == "Pss":
                pss += int(value.split()[0])
    return rss / 1024, pss / 1024


def run(steps: int, starts: int) -> dict[str, float]:
    """Measure one environment; returns the figures."""
    with tempfile.TemporaryDirectory() as work:
        env = live_kind("web").build(LiveConfig(work_dir=Path(work)))
        try:
            cold = timed(lambda: env.start("miniwob.click-checkboxes@20"))
            time.sleep(2)  # idle, then read memory
            processes = descendants()
            driver = [pid for pid, name in processes.items() if os.path.basename(name) == "node"]
            sandbox = [pid for pid in processes if pid not in driver]
            sandbox_rss, sandbox_pss = memory_mib(sandbox)
            driver_rss, _ = memory_mib(driver)
            warm = [timed(lambda: env.start("miniwob.click-checkboxes@20")) for _ in range(starts)]
            step_times, observe_times = [], []
            for i in range(steps):
                action = "click('18')" if i % 2 else "click('21')"
                step_times.append(timed(lambda action=action: env.act(action)))
                observe_times.append(timed(env.observe))
            env.start("miniwob.enter-text@3")
            fills = [timed(lambda i=i: env.act(f"fill('14', 'word {i}')")) for i in range(steps)]
        finally:
            env.close()
        left = descendants()
    step, observe = statistics.median(step_times), statistics.median(observe_times)
    return {
        "cold_start_s": round(cold, 3),
        "warm_start_s": round(statistics.median(warm), 3),
        "click_step_s": round(step, 3),
        "fill_step_s": round(statistics.median(fills), 3),
        "observe_s": round(observe, 3),
        "step_over_observe": round(step / observe, 2),
        "sandbox_processes": len(sandbox),
        "sandbox_rss_mib": round(sandbox_rss, 1),
        "sandbox_pss_mib": round(sandbox_pss, 1),
        "driver_rss_mib": round(driver_rss, 1),
        "processes_left_after_close": len(left),
    }


def main() -> None:
    """Run the benchmark and print (and optionally save) the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--starts", type=int, default=8)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    missing = live_kind("web").missing()
    if missing:
        raise SystemExit(f"The live web environment cannot run here: {missing}")
    figures = run(args.steps, args.starts)
    for name, value in figures.items():
        print(f"{name:28} {value}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
