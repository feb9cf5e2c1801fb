"""Choose grounding's similarity by measurement: leave-one-trajectory-out on the bundled set.

For every bundled item (a real turn), each similarity method ranks the real transitions of the
item's domain from the OTHER recordings (the leakage guard every grounded request carries), and
the real next state of its top neighbour is scored against the item's true next state with the
domain's headline metric (`backend.stepping.compare`). A method that finds a step whose real
outcome looks like this step's outcome is what grounding needs.

Columns: `top1` the headline of the top neighbour's next state (0 when there is none); `best@4`
the best headline among the top 4 (what k = 4 demonstrations could show); `cover` the share of
items with at least one neighbour. Reference rows: `persistence` (the state before, unchanged)
and `ceiling` (the best next state among all candidates: what a perfect ranking reaches).
Timing: building each domain's index, and one query, as median milliseconds of CPU time.

Freshness cost (`--copies N`): the bundled set stored N times over in a fresh SQLite database
(`storage.transitions.TransitionStore`, what the app uses), then per domain the wall time of the
version check every retrieval pays, and of a rebuild (reading the domain's transitions and
indexing them), which a retrieval pays only after a write to that domain.

Usage: PYTHONPATH=. python benchmarks/bench_grounding.py [--copies 1 --copies 100] [--results]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from backend.benchmark.items import BenchItem, load_items
from backend.data.bundled import load_bundled
from backend.grounding.grounder import Grounder
from backend.grounding.similarity import METHODS
from backend.grounding.transitions import FixedTransitions, Transition, trajectory_transitions
from backend.stepping import compare
from backend.types import HistoryMode, SamplingParams
from benchmarks.results import ResultsRun, Table
from storage.migrate import open_database
from storage.trajectories import TrajectoryStore
from storage.transitions import TransitionStore

TOP = 4


def headline(item: BenchItem, predicted: str) -> float:
    """The item's headline metric for `predicted` (0 when it cannot be scored)."""
    return compare(item.domain, predicted, item.reference, item.previous).headline or 0.0


def freshness(copies: int) -> list[list[Any]]:
    """Time the version check and a rebuild over the bundled set stored `copies` times."""
    bundled = load_bundled()
    with tempfile.TemporaryDirectory() as folder:
        database = open_database(f"sqlite:///{Path(folder) / 'awp.db'}")
        TrajectoryStore(database.session_factory).upsert_many(
            t.model_copy(update={"id": f"{t.id}/copy{i}"}) for i in range(copies) for t in bundled
        )
        store = TransitionStore(database.session_factory)
        rows: list[list[Any]] = []
        for domain in ("terminal", "android"):
            checks, rebuilds = [], []
            for _ in range(5):
                start = time.perf_counter()
                store.version(domain)
                checks.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                found = store.transitions(domain)
                Grounder(store, 4, 2000).method.index([(t.before, t.action) for t in found])
                rebuilds.append((time.perf_counter() - start) * 1000)
            check, rebuild = statistics.median(checks), statistics.median(rebuilds)
            rows.append([copies, domain, len(found), round(check, 1), round(rebuild)])
            print(
                f"x{copies:<4} {domain:<9} {len(found):>6} transitions: version check "
                f"{check:.1f} ms, rebuild {rebuild:.0f} ms"
            )
        database.dispose()
    return rows


def main() -> None:
    """Print one table row per method and domain, then the timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, action="append", default=[])
    parser.add_argument("--results", action="store_true", help="write docs/results/grounding.*")
    options = parser.parse_args()
    copies = options.copies
    run = ResultsRun(
        "grounding",
        "Grounding: similarity methods compared, leave one trajectory out",
        "For every bundled item each similarity method ranks the real transitions of the "
        "item's domain from the other recordings; the real next state of its top neighbour is "
        "scored against the item's true next state with the domain's headline metric. "
        "`persistence` (the state before, unchanged) and `ceiling` (the best candidate: a "
        "perfect ranking) give the scale.",
    )
    quality: list[list[Any]] = []
    timing: list[list[Any]] = []
    transitions = [t for r in load_bundled() for t in trajectory_transitions(r)]
    source = FixedTransitions(transitions)
    items = load_items("bundled")
    params = SamplingParams()
    rows: dict[str, dict[str, list[tuple[float, float, bool]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    timings: dict[str, tuple[list[float], list[float]]] = {}
    cache: dict[tuple[str, str], float] = {}

    def scored(item: BenchItem, transition: Transition) -> float:
        key = (item.item_id, transition.ref)
        if key not in cache:
            cache[key] = headline(item, transition.after)
        return cache[key]

    for name in METHODS.names():
        grounder = Grounder(source, k=TOP, max_tokens=10**9, method=name)
        builds, queries = [], []
        for domain in sorted({t.domain for t in transitions}):
            start = time.process_time()
            grounder.method.index([(t.before, t.action) for t in source.transitions(domain)])
            builds.append((time.process_time() - start) * 1000)
        for item in items:
            request = item.request(params, HistoryMode.TEACHER_FORCED)
            start = time.process_time()
            found = grounder.neighbours(request)
            queries.append((time.process_time() - start) * 1000)
            top = [scored(item, t) for t in found[:TOP]]
            rows[name][item.domain].append(
                (top[0] if top else 0.0, max(top, default=0.0), bool(top))
            )
        timings[name] = (builds, queries)
    for item in items:
        ceiling = [
            scored(item, t)
            for t in source.transitions(item.domain)
            if t.trajectory_id != item.trajectory_key
        ]
        persistence = headline(item, item.previous or "")
        best = max(ceiling, default=0.0)
        rows["persistence"][item.domain].append((persistence, persistence, True))
        rows["ceiling"][item.domain].append((best, best, bool(ceiling)))

    domains = sorted({item.domain for item in items})
    print(f"{'method':<17} {'domain':<9} {'n':>4} {'top1':>6} {f'best@{TOP}':>7} {'cover':>6}")
    for name, by_domain in rows.items():
        for domain in [*domains, "all"]:
            cells = (
                [c for d in domains for c in by_domain[d]] if domain == "all" else by_domain[domain]
            )
            if not cells:
                continue
            top1 = statistics.fmean(c[0] for c in cells)
            best = statistics.fmean(c[1] for c in cells)
            cover = statistics.fmean(1.0 if c[2] else 0.0 for c in cells)
            quality.append([name, domain, len(cells), round(top1, 3), round(best, 3), cover])
            print(f"{name:<17} {domain:<9} {len(cells):>4} {top1:>6.3f} {best:>7.3f} {cover:>6.2f}")
    print()
    for name, (builds, queries) in timings.items():
        build, query = statistics.median(builds), statistics.median(queries)
        timing.append([name, round(build, 2), round(query, 3)])
        print(f"{name:<17} index build median {build:.2f} ms/domain, query median {query:.3f} ms")
    fresh = [row for count in copies for row in freshness(count)]
    if options.results:
        tables = [
            Table(
                "Neighbour quality",
                ["method", "domain", "items", "top1", f"best@{TOP}", "cover"],
                quality,
                f"`top1`: headline of the top neighbour's next state (0 when none); "
                f"`best@{TOP}`: the best among the top {TOP}; `cover`: share of items with a "
                "neighbour.",
            ),
            Table(
                "Cost",
                ["method", "index build ms/domain (median CPU)", "query ms (median CPU)"],
                timing,
            ),
        ]
        if fresh:
            tables.append(
                Table(
                    "Freshness: the bundled set stored N times over",
                    ["copies", "domain", "transitions", "version check ms", "rebuild ms"],
                    fresh,
                    "Wall time; a retrieval pays the version check, a rebuild only after a write.",
                )
            )
        run.write(tables, data={"quality": quality, "timing": timing, "freshness": fresh})


if __name__ == "__main__":
    main()
