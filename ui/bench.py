"""Benchmark runs from the UI: run engines over a dataset into the data dir, list past runs.

Runs go through `backend.benchmark.service.run_bench`, the same code as `awp bench`, so a run
started here can be resumed or re-read from the command line. Each run is a benchmark record of
the run store (listed here) and a folder under `<data dir>/bench/` holding its items, results
and chart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from backend.benchmark.items import DATASETS
from backend.benchmark.report import CHART_FILE
from backend.benchmark.results import BenchResults
from backend.benchmark.runner import RunConfig
from backend.benchmark.service import new_run_dir, run_bench
from backend.benchmark.sessions import BenchSessions
from backend.errors import BadInputError
from backend.spec import Purpose
from backend.types import HistoryMode, SamplingParams
from storage.models import RunStatus
from storage.run_kinds import BenchRun
from storage.run_lifecycle import recorded
from ui.services import Services
from ui.users import AccessDeniedError, User

PAST_HEADERS = ["run", "date", "dataset", "engines", "status", "items", "overall (macro)"]
RESULT_HEADERS = ["engine", "Overall macro", "Overall micro", "items", "failed"]
"""The results table's columns but the per-domain ones (which follow `engine`).

Also the empty table's headers, before a run and after one that left no results: Gradio's
default would number the columns "1 2 3".
"""


@dataclass(frozen=True)
class BenchRequest:
    """What the Benchmark page asks for.

    Grounding and record answers are off unless asked, as for `awp bench`: the figures measure
    the model, whatever the Playground's defaults (`AWP_GROUNDING`, `AWP_RECORD_ANSWERS`).
    """

    dataset: str
    engines: list[str]
    judge: str | None
    limit: int | None
    history_mode: HistoryMode
    params: SamplingParams
    grounding: bool = False
    record_answers: bool = False


@dataclass(frozen=True)
class PastRun:
    """A stored run as the page shows it: results only when it finished, chart while on disk."""

    record: BenchRun
    results: BenchResults | None
    chart: Path | None

    def note(self) -> str:
        """The status line above the table."""
        run = self.record
        if self.results is not None:
            return f"Run #{run.id}: {self.results.dataset}, {self.results.history_mode}."
        return f"Run #{run.id} ({run.dataset}) is {run.status}. {run.message or ''}".strip()


def table(results: BenchResults) -> tuple[list[str], list[list[str]]]:
    """Headers and rows: each engine's headline metric x100 per domain and both Overalls.

    Each domain's header names its headline metric, the one stored with the run (a later change
    of a domain's headline does not relabel an old run).
    """
    engines = results.engines.values()
    domains = sorted({d for stats in engines for d in stats.domains})
    metrics = {d: next(s.domains[d].headline for s in engines if d in s.domains) for d in domains}
    first, *rest = RESULT_HEADERS
    headers = [first, *(f"{d} · {metrics[d]}" for d in domains), *rest]
    rows = []
    for name, stats in results.engines.items():
        values = [stats.domains[d].headline_value if d in stats.domains else None for d in domains]
        overall = stats.headline_overall
        cells = [*values, overall.macro, overall.micro]
        rows.append(
            [
                name,
                *("-" if v is None else f"{100 * v:.1f}" for v in cells),
                str(stats.items),
                str(stats.failures),
            ]
        )
    return headers, rows


def past_row(run: BenchRun) -> list[str]:
    """One line of the past-runs table."""
    macro = ", ".join(
        f"{name} {100 * value:.1f}"
        for name, value in run.overall_macro().items()
        if value is not None
    )
    return [
        str(run.id),
        run.created_at.strftime("%Y-%m-%d %H:%M"),
        run.dataset,
        ", ".join(run.engines),
        run.status,
        str(run.done),
        macro,
    ]


class Benchmarks:
    """Starts runs and reads past ones from the run store."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.store = services.runs

    @staticmethod
    def check(user: User, request: BenchRequest) -> None:
        """Refuse a request that cannot run, before any job is started for it.

        Raises:
            AccessDeniedError: a dataset path given by someone who is not an admin.
            BadInputError: no engine chosen.
        """
        if not request.engines:
            raise BadInputError("Choose at least one engine to benchmark.")
        if request.dataset not in DATASETS and not user.is_admin:
            raise AccessDeniedError("Only admins can benchmark a dataset file from the server.")

    def run(
        self,
        user: User,
        request: BenchRequest,
        progress: Callable[[int, int], None] = lambda done, total: None,
    ) -> tuple[BenchResults, Path]:
        """Run the benchmark into a new folder, recorded as a run; returns results and chart path.

        `progress` hears (items done, items to do) as chunks finish; the run record counts
        them too, so the runs list shows how far a running benchmark is.

        Raises:
            AccessDeniedError: a dataset path given by someone who is not an admin.
            BadInputError: no engine chosen, or the dataset is unknown or malformed.
            JobCancelledError: its job was cancelled (the run is recorded as interrupted).
        """
        self.check(user, request)
        out = new_run_dir(self.services.data_dir, request.engines)
        config = RunConfig(
            engines=request.engines,
            limit=request.limit,
            history_mode=request.history_mode,
            params=request.params,
        )
        services = self.services
        # No model box here: the configured model, as `awp bench` without --model.
        worlds = {
            name: services.world_spec(
                Purpose.BENCH,
                engine=name,
                sampling=request.params,
                history_mode=request.history_mode,
                grounding=request.grounding,
                record_answers=request.record_answers,
            )
            for name in request.engines
        }
        # The judge menu picks an engine, its model left to the one rule (`judge_spec`).
        judge = services.judge(request.judge) if request.judge else None
        judge_world = services.judge_spec(request.judge) if request.judge else None
        spec = BenchRun.new_spec(
            request.dataset,
            request.engines,
            request.judge,
            [worlds[name] for name in request.engines],
            judge_world,
        )
        with recorded(self.store, BenchRun, spec, out_dir=str(out), owner=user.name) as run:

            def advance(done: int, total: int) -> None:
                run.progress(done, total)
                progress(done, total)

            results = run_bench(
                request.dataset,
                out,
                config,
                lambda name: services.simulator(worlds[name]),
                judge,
                sessions=BenchSessions(self.services.sessions, run.id),
                progress=advance,
            )
            run.conclude(*BenchRun.outcome(results))
        return results, out / CHART_FILE

    def load(self, run_id: str) -> PastRun:
        """A stored run with its results (from the stored summary) and chart, if still on disk.

        Raises:
            BadInputError: `run_id` is not a run number.
            NotFoundError: no run has that number.
        """
        try:
            number = int(str(run_id).strip().lstrip("#"))
        except ValueError:
            raise BadInputError(
                f"No benchmark run called {run_id!r}; pick one from the list."
            ) from None
        record = self.store.get(BenchRun, number)
        finished = record.status == RunStatus.FINISHED and record.results
        results = BenchResults.model_validate(record.results) if finished else None
        chart = Path(record.out_dir) / CHART_FILE if record.out_dir else None
        return PastRun(record, results, chart if chart and chart.is_file() else None)

    def listing(self) -> tuple[list[list[str]], list[tuple[str, str]]]:
        """Stored runs, newest first: rows for the runs table and (label, id) picker entries."""
        runs = self.store.list_runs(BenchRun)
        choices = [
            (f"#{r.id} {r.dataset}: {', '.join(r.engines)} ({r.status})", str(r.id)) for r in runs
        ]
        return [past_row(run) for run in runs], choices
