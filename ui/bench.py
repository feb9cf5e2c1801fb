"""Benchmark runs from the UI: run engines over a dataset into the data dir, list past runs.

Runs go through `backend.benchmark.service.run_bench`, the same code as `awp bench`, so a run
started here can be resumed or re-read from the command line; each run is one folder under
`<data dir>/bench/` holding its items, results and chart.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from backend.benchmark.items import DATASETS
from backend.benchmark.report import CHART_FILE
from backend.benchmark.results import BenchResults
from backend.benchmark.runner import RunConfig
from backend.benchmark.service import RESULTS_FILE, run_bench
from backend.errors import BadInputError
from backend.scoring.judge import Judge
from backend.types import HistoryMode, SamplingParams
from ui.services import Services
from ui.users import AccessDeniedError, User

PAST_HEADERS = ["run", "dataset", "history", "engines", "overall (macro)", "created"]


@dataclass(frozen=True)
class BenchRequest:
    """What the Benchmark page asks for."""

    dataset: str
    engines: list[str]
    judge: str | None
    limit: int | None
    history_mode: HistoryMode
    params: SamplingParams


def table(results: BenchResults) -> tuple[list[str], list[list[str]]]:
    """Headers and rows: each engine's headline metric x100 per domain and both Overalls."""
    domains = sorted({d for stats in results.engines.values() for d in stats.domains})
    headers = ["engine", *domains, "Overall macro", "Overall micro", "items", "failed"]
    rows = []
    for name, stats in results.engines.items():
        values = [stats.domains[d].headline_value if d in stats.domains else None for d in domains]
        overall = stats.headline_overall
        cells = [*values, overall.macro, overall.micro]
        rows.append([name, *("-" if v is None else f"{100 * v:.1f}" for v in cells),
                     str(stats.items), str(stats.failures)])  # fmt: skip
    return headers, rows


class Benchmarks:
    """Starts runs and reads past ones."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.root = services.data_dir / "bench"

    def run(self, user: User, request: BenchRequest) -> tuple[BenchResults, Path]:
        """Run the benchmark into a new folder; returns the results and the chart path.

        Raises:
            AccessDeniedError: a dataset path given by someone who is not an admin.
            BadInputError: no engine chosen, or the dataset is unknown or malformed.
        """
        if not request.engines:
            raise BadInputError("Choose at least one engine to benchmark.")
        if request.dataset not in DATASETS and not user.is_admin:
            raise AccessDeniedError("Only admins can benchmark a dataset file from the server.")
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        out = self.root / f"{stamp}-{'-'.join(request.engines)}"[:120]
        config = RunConfig(engines=request.engines, limit=request.limit,
                           history_mode=request.history_mode, params=request.params)  # fmt: skip
        judge = Judge(self.services.engine(request.judge, "", None)) if request.judge else None
        simulators = self.services.simulator
        results = run_bench(
            request.dataset, out, config, lambda name: simulators(name, "", None), judge
        )
        return results, out / CHART_FILE

    def past(self) -> list[tuple[str, BenchResults]]:
        """Finished runs, newest first."""
        runs = []
        for path in sorted(self.root.glob(f"*/{RESULTS_FILE}"), reverse=True):
            try:
                runs.append((path.parent.name, BenchResults.model_validate_json(path.read_text())))
            except ValueError:
                continue  # a run that crashed mid-write; its folder can be resumed from the CLI
        return runs

    def load(self, run_id: str) -> tuple[BenchResults, Path]:
        """A past run's results and chart."""
        folder = self.root / Path(run_id).name
        path = folder / RESULTS_FILE
        if not path.is_file():
            raise BadInputError(f"No finished benchmark run called {run_id!r}.")
        return BenchResults.model_validate_json(path.read_text()), folder / CHART_FILE

    def past_rows(self) -> list[list[str]]:
        """One row per past run for the runs table."""
        rows = []
        for run_id, results in self.past():
            macro = ", ".join(
                f"{name} {100 * s.headline_overall.macro:.1f}"
                for name, s in results.engines.items()
                if s.headline_overall.macro is not None
            )
            rows.append([run_id, results.dataset, results.history_mode,
                         ", ".join(results.engines), macro, results.created_at[:19]])  # fmt: skip
        return rows
