"""Peak memory of `awp import agentworldbench` on a large JSONL file, and whether it stays flat.

Rows are generated from the bundled recorded trajectories (every evaluated turn of each, the
published layout, ids made unique per copy) until the file reaches the asked size; a file a tenth
that size is made the same way. Each import runs `awp` in a child process over a fresh SQLite
database, and the child's peak RSS is read from `wait4`. A child that only imports the same
modules gives the baseline, so the figures that matter are the growth over it and the ratio of
the two growths: near 1 when memory does not depend on the file's size.

Usage: PYTHONPATH=. python benchmarks/bench_import.py [--mb 100] [--json OUT] [--results]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from backend.data.agentworldbench import trajectory_to_rows
from backend.data.bundled import load_bundled
from benchmarks.results import ResultsRun, Table

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "import app.cli, app.commands.data, backend.data.agentworldbench, storage.trajectories"


def write_rows(path: Path, megabytes: float) -> int:
    """Write AgentWorldBench rows until `path` holds `megabytes` MiB; returns the row count."""
    trajectories = [t for t in load_bundled() if all(turn.observation for turn in t.turns)]
    target = megabytes * 2**20
    rows = 0
    copy = 0
    with path.open("w", encoding="utf-8") as out:
        while out.tell() < target:
            for trajectory in trajectories:
                unique = trajectory.model_copy(update={"id": f"{trajectory.id}~{copy}"})
                for row in trajectory_to_rows(unique, "You are a world model."):
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
                    rows += 1
                if out.tell() >= target:
                    break
            copy += 1
    return rows


def run_child(args: list[str], data_dir: Path) -> tuple[float, float]:
    """Run `python args` with its own data directory; returns (seconds, peak RSS in MiB)."""
    env = {**os.environ, "AWP_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    assert child.stderr is not None
    if status != 0:
        raise RuntimeError(f"{args} failed: {child.stderr.read().decode()[-2000:]}")
    child.stderr.close()
    return elapsed, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100.0, help="size of the large file (MiB)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--results", action="store_true", help="write docs/results/import.*")
    options = parser.parse_args()
    run = ResultsRun(
        "import",
        "Importing a large AgentWorldBench file: peak memory",
        "`awp import agentworldbench` in a child process over a fresh SQLite database, on a "
        "JSONL file made from the bundled trajectories and on one a tenth its size; peak RSS "
        "from `wait4`, against a child that only imports the same modules. Memory that does "
        "not depend on the file's size gives a growth ratio near 1.",
    )
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="awp-bench-import-") as scratch:
        root = Path(scratch)
        _, baseline = run_child(["-c", BASELINE], root / "baseline")
        results["baseline"] = {"peak_rss_mib": baseline}
        for name, size in (("small", options.mb / 10), ("large", options.mb)):
            path = root / f"{name}.jsonl"
            rows = write_rows(path, size)
            command = ["-m", "app", "import", "agentworldbench", str(path)]
            seconds, peak = run_child(command, root / name)
            results[name] = {
                "file_mib": path.stat().st_size / 2**20,
                "rows": rows,
                "seconds": seconds,
                "peak_rss_mib": peak,
                "growth_mib": peak - baseline,
            }
            path.unlink()
    small, large = results["small"], results["large"]
    results["growth_ratio"] = {"large_over_small": large["growth_mib"] / small["growth_mib"]}
    print(f"baseline (imports only): peak RSS {baseline:.0f} MiB")
    for name in ("small", "large"):
        r = results[name]
        print(
            f"{name}: {r['file_mib']:.0f} MiB, {r['rows']:.0f} rows, {r['seconds']:.1f} s, "
            f"peak RSS {r['peak_rss_mib']:.0f} MiB (+{r['growth_mib']:.0f} over the baseline)"
        )
    print(f"growth ratio large/small: {results['growth_ratio']['large_over_small']:.2f}")
    if options.json:
        options.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    if options.results:
        rows = [["imports only", None, None, None, round(baseline), None]]
        rows += [
            [
                name,
                round(results[name]["file_mib"], 1),
                results[name]["rows"],
                round(results[name]["seconds"], 1),
                round(results[name]["peak_rss_mib"]),
                round(results[name]["growth_mib"]),
            ]
            for name in ("small", "large")
        ]
        ratio = round(results["growth_ratio"]["large_over_small"], 2)
        table = Table(
            "Peak memory",
            ["child", "file MiB", "rows", "seconds", "peak RSS MiB", "growth over imports MiB"],
            rows,
            f"Growth ratio large / small: {ratio}.",
        )
        notes = [f"The large file is {options.mb:g} MiB."]
        run.write([table], data=results, notes=notes)


if __name__ == "__main__":
    main()
