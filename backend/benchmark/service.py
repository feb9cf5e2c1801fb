"""One benchmark run from dataset name to results files; the CLI and the UI call this.

Rows scored by an older version of a domain's metrics (a run resumed after a metric changed)
are scored again, in memory, from their stored prediction before aggregation, so that
`results.json` never averages one formula with another; `items.jsonl` keeps what was stored.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from backend.benchmark.items import BenchItem, load_items
from backend.benchmark.provenance import metric_versions, reproduction
from backend.benchmark.report import write_chart
from backend.benchmark.results import BenchResults, aggregate
from backend.benchmark.runner import RunConfig, run_benchmark
from backend.benchmark.sessions import BenchSessions
from backend.benchmark.store import ItemRow, ItemStore
from backend.errors import BadInputError
from backend.scoring import headline_metric
from backend.scoring.judge import Judge
from backend.simulate import Simulator
from backend.stepping import compare

ITEMS_FILE = "items.jsonl"
RESULTS_FILE = "results.json"


def new_run_dir(data_dir: Path, engines: list[str]) -> Path:
    """A fresh folder under `<data_dir>/bench/`, named by start time and engines.

    The UI and `awp bench` without `--out` share this layout, so a run started in either can
    be found and resumed from the other.
    """
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")
    return data_dir / "bench" / f"{stamp}-{'-'.join(engines)}"[:120]


def run_bench(
    dataset: str,
    out_dir: Path,
    config: RunConfig,
    simulator_for: Callable[[str], Simulator],
    judge: Judge | None = None,
    resume: bool = False,
    sessions: BenchSessions | None = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> BenchResults:
    """Run, then write `items.jsonl`, `results.json` and the per-domain chart into `out_dir`.

    Args:
        dataset: `bundled` or a path to AgentWorldBench rows.
        out_dir: the output directory (created when missing).
        config: engines, concurrency, limit, history mode, sampling.
        simulator_for: builds the simulator of an engine name.
        judge: grades every prediction when given.
        resume: continue a run in `out_dir`, skipping items it already finished.
        sessions: stores every prediction in SQL as a bench session step, when given.
        progress: told (items done, items to do) as chunks finish (`run_benchmark`).

    Raises:
        BadInputError: `out_dir` already holds a run and `resume` is off, or the dataset is
            unknown or malformed.
    """
    store = ItemStore(out_dir / ITEMS_FILE)
    if store.exists() and not resume:
        raise BadInputError(
            f"{out_dir} already holds a benchmark run; pass --resume to continue it "
            "or choose another --out."
        )
    items = load_items(dataset)
    return run_items(items, dataset, out_dir, config, simulator_for, judge, sessions, progress)


def run_items(
    items: list[BenchItem],
    dataset: str,
    out_dir: Path,
    config: RunConfig,
    simulator_for: Callable[[str], Simulator],
    judge: Judge | None = None,
    sessions: BenchSessions | None = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> BenchResults:
    """Run over items already loaded (a held-out split, say) and write the results files.

    Items `out_dir` already holds as done are skipped, so calling it again resumes.

    Args:
        items: the items, in order.
        dataset: the name the results carry for these items.
        out_dir: the output directory (created when missing).
        config: engines, concurrency, limit, history mode, sampling.
        simulator_for: builds the simulator of an engine name.
        judge: grades every prediction when given.
        sessions: stores every prediction in SQL as a bench session step, when given.
        progress: told (items done, items to do) as chunks finish (`run_benchmark`).
    """
    store = ItemStore(out_dir / ITEMS_FILE)
    out_dir.mkdir(parents=True, exist_ok=True)
    run_benchmark(items, config, store, simulator_for, judge, sessions, progress)
    selected = items[: config.limit] if config.limit else items
    by_id = {item.item_id: item for item in selected}
    rows = [
        current_scores(row, by_id[row.item_id])
        for row in store.rows()
        if row.item_id in by_id and row.engine in config.engines
    ]
    provenance = reproduction(selected, config.params, config.limit)
    results = aggregate(rows, dataset, config.history_mode.value, provenance)
    (out_dir / RESULTS_FILE).write_text(results.model_dump_json(indent=2), encoding="utf-8")
    write_chart(results, out_dir)
    return results


def current_scores(row: ItemRow, item: BenchItem) -> ItemRow:
    """The row scored by the current metrics of its domain (a copy when it was not already).

    A row whose reference can no longer be scored keeps its stored metrics.
    """
    wanted = metric_versions({row.domain})
    if row.status != "ok" or {m.name: m.version for m in row.metrics} == wanted:
        return row
    scores = compare(row.domain, row.predicted, item.reference, item.previous)
    if scores.problem:
        return row
    return row.model_copy(
        update={
            "metrics": scores.results,
            "headline": headline_metric(row.domain),
            "headline_value": scores.headline,
        }
    )
