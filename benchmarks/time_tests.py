"""The test tiers' wall time, measured by running them: the figure the tier targets are judged on.

Runs `make test-fast` (the fast tier: lint, types, schema checks, unit and light integration
tests) or, with `--tier full`, `make test` (the whole suite with PostgreSQL and the browser), in a
child process, and records its wall time against the target (3 and 15 minutes quiet), its exit
status, pytest's summary line and the slowest tests pytest names (`--durations`). The load
average at start and end is in the stamp: a busy machine's time is not a quiet one's.

Usage: PYTHONPATH=. python benchmarks/time_tests.py [--tier fast|full] [--results]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import time
from typing import Any

from benchmarks.results import ROOT, ResultsRun, Table

TIERS = {"fast": ("test-fast", 180.0), "full": ("test", 900.0)}
"""Tier -> (make target, target wall seconds on a quiet machine of this kind)."""
SUMMARY = re.compile(r"^=*\s*(\d+ (?:passed|failed).*) in ([\d.]+)s", re.MULTILINE)
DURATION = re.compile(r"^([\d.]+)s (call|setup|teardown)\s+(\S+)$", re.MULTILINE)


def pytest_report(output: str) -> tuple[str, float | None, list[list[Any]]]:
    """From a pytest run's output: its last summary, its own seconds and the slowest tests.

    Returns:
        the counts ("1487 passed, 2 failed", or "-" when pytest printed none), the seconds
        pytest reports, and the `--durations` lines as [seconds, phase, test].
    """
    summaries = SUMMARY.findall(output)
    slow = [[float(s), phase, test] for s, phase, test in DURATION.findall(output)]
    if not summaries:
        return "-", None, slow
    counts, seconds = summaries[-1]
    return counts, float(seconds), slow


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tier", choices=sorted(TIERS), default="fast")
    parser.add_argument("--results", action="store_true", help="write docs/results/tests-*")
    options = parser.parse_args()
    target, budget = TIERS[options.tier]
    run = ResultsRun(
        f"tests-{options.tier}",
        f"Test tier times: `make {target}`",
        f"`make {target}` run once in a child process from the repository root, timed by the "
        f"wall clock, against its target of {budget / 60:g} minutes on a quiet machine of this "
        "kind; the slowest tests are pytest's own `--durations` report.",
    )
    start = time.perf_counter()
    child = subprocess.run(["make", target], cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    output = child.stdout + child.stderr
    counts, pytest_s, slow = pytest_report(output)
    print(output[-3000:])
    print(f"make {target}: exit {child.returncode}, {wall:.0f} s wall (target {budget:.0f} s)")
    if options.results:
        tables = [
            Table(
                "Wall time",
                ["target", "exit", "wall s", "pytest s", "target s", "within target", "tests"],
                [[target, child.returncode, round(wall), pytest_s, budget, wall <= budget, counts]],
            ),
            Table("Slowest tests", ["seconds", "phase", "test"], slow),
        ]
        notes = [
            "The target is for a quiet machine; read the load average below before comparing.",
        ]
        run.write(tables, data={"wall_s": wall, "exit": child.returncode}, notes=notes)


if __name__ == "__main__":
    main()
