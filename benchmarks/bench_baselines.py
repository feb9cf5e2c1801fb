"""The baselines' headline scores on the bundled set: the README's table, printed as markdown.

Runs `awp bench --dataset bundled --engine persistence --engine oracle` in a child process (the
same code path as the CLI and the Benchmark page, in a throwaway data directory), then prints
the README table from its `results.json` (headline metric x100 per domain, macro and micro
Overall), the bootstrap 95% intervals, and the commit and dataset hash the numbers belong to.

With `--tmux`, also records a short real terminal session (a fixed list of harmless commands in
a throwaway home folder, an 80x24 tmux pane, so the screen accumulates and then scrolls as a
real one does) and scores the persistence baseline on it with the plain screen similarity and
with the headline `screen_delta`: the first rewards repeating the previous screen, the second
must not.

Usage: PYTHONPATH=. python benchmarks/bench_baselines.py [--tmux] [--results]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path
from statistics import fmean
from typing import Any

from backend.benchmark.results import BenchResults
from backend.scoring import score_observation
from benchmarks.results import ResultsRun, Table, show

REPO = Path(__file__).resolve().parents[1]
ENGINES = ("persistence", "oracle")
TMUX_COMMANDS = (
    "ls",
    "echo hello > a.txt",
    "cat a.txt",
    "seq 1 5",
    "mkdir src && cd src",
    "pwd",
    "python3 -c 'print(2+3)'",
    "ls -la | wc -l",
    "seq 1 12",
    "date +%s",
    "echo done",
    "cat nofile",
    "cd .. && ls",
    "seq 100 130",
    "clear",
    "echo after clear",
    "printf 'x\\ny\\n'",
    "true",
)
TMUX_WAIT_S = 0.4


def run_bench(workdir: Path) -> BenchResults:
    """Run the CLI on the bundled set; return its results.json."""
    out = workdir / "run"
    command = [sys.executable, "-m", "app", "bench", "--dataset", "bundled"]
    for engine in ENGINES:
        command += ["--engine", engine]
    env = {**os.environ, "AWP_DATA_DIR": str(workdir / "data"), "PYTHONPATH": str(REPO)}
    subprocess.run(
        [*command, "--out", str(out)], cwd=workdir, env=env, check=True, capture_output=True
    )
    return BenchResults.model_validate_json((out / "results.json").read_text(encoding="utf-8"))


def x100(value: float | None) -> float | None:
    """A headline as the tables show it: x100, one decimal."""
    return None if value is None else round(value * 100, 1)


def headline_table(results: BenchResults) -> Table:
    """One row per baseline, domains sorted, then macro and micro Overall."""
    domains = sorted({d for stats in results.engines.values() for d in stats.domains})
    rows: list[list[Any]] = []
    for name, stats in results.engines.items():
        values = [stats.domains[d].headline_value if d in stats.domains else None for d in domains]
        values += [stats.headline_overall.macro, stats.headline_overall.micro]
        rows.append([f"{name} (baseline)", *(x100(v) for v in values)])
    return Table("Headline x100", ["engine", *domains, "macro", "micro"], rows)


def interval_table(results: BenchResults) -> Table:
    """Each baseline's per-domain bootstrap 95% interval."""
    rows: list[list[Any]] = []
    for name, stats in results.engines.items():
        for domain, domain_stats in sorted(stats.domains.items()):
            if domain_stats.headline_interval is not None:
                low, high = domain_stats.headline_interval
                rows.append([name, domain, x100(low), x100(high)])
    return Table("Bootstrap 95% intervals (x100)", ["engine", "domain", "low", "high"], rows)


def record_tmux(home: Path) -> list[str]:
    """Screens of a real 80x24 tmux pane: before the first command and after each one."""
    socket = f"awp-bench-{os.getpid()}"

    def tmux(*args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", socket, *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    shell = f"env -i HOME={home} PS1='user@box:\\w$ ' TERM=xterm bash --norc --noprofile -i"
    tmux("new-session", "-d", "-x", "80", "-y", "24", "-s", "rec", "-c", str(home), shell)
    try:
        time.sleep(TMUX_WAIT_S)
        screens = [tmux("capture-pane", "-p", "-t", "rec")]
        for command in TMUX_COMMANDS:
            tmux("send-keys", "-t", "rec", command, "Enter")
            time.sleep(TMUX_WAIT_S)
            screens.append(tmux("capture-pane", "-p", "-t", "rec"))
    finally:
        tmux("kill-server")
    return screens


def tmux_persistence(home: Path) -> str:
    """Persistence's mean screen_similarity and screen_delta on a recorded tmux session."""
    screens = record_tmux(home)
    values: dict[str, list[float]] = {"screen_similarity": [], "screen_delta": []}
    for previous, screen in pairwise(screens):
        for result in score_observation("terminal", previous, screen, previous):
            if result.name in values:
                values[result.name].append(result.value)
    return f"tmux session, {len(screens) - 1} steps, persistence x100: " + ", ".join(
        f"{name} {fmean(vals) * 100:.1f}" for name, vals in values.items()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="Baselines' headline table on the bundled set.")
    parser.add_argument("--tmux", action="store_true", help="also score a real tmux session")
    parser.add_argument("--results", action="store_true", help="write docs/results/baselines.*")
    args = parser.parse_args()
    run = ResultsRun(
        "baselines",
        "Baselines on the bundled set",
        "`awp bench --dataset bundled --engine persistence --engine oracle` in a child process "
        "(the CLI's and the Benchmark page's code path, a throwaway data folder): each "
        "domain's headline metric x100, macro and micro Overall, and bootstrap intervals. "
        "Persistence copies the previous observation; the oracle returns the real one.",
    )
    with tempfile.TemporaryDirectory() as tmp:
        results = run_bench(Path(tmp))
        tables = [headline_table(results), interval_table(results)]
        show(tables)
        notes = []
        if results.reproduction is not None:
            made = results.reproduction
            notes.append(f"Dataset sha256 `{made.dataset_sha256}`.")
        print("\n".join(notes))
        if args.results:
            run.write(tables, notes=notes)
        if args.tmux:
            if shutil.which("tmux") is None:
                print("tmux is not installed: no terminal session recorded")
            else:
                home = Path(tmp) / "home"
                home.mkdir()
                print(tmux_persistence(home))


if __name__ == "__main__":
    main()
