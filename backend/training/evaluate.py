"""The held-out evaluation: the benchmark on the held-out split, before and after training.

Both runs use the benchmark machinery (`backend.benchmark.service.run_items`) with the same
settings (teacher-forced history, greedy decoding, one completion budget); the first also runs
the persistence and oracle baselines, which give the table its scale.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from backend.benchmark.items import BenchItem
from backend.benchmark.results import BenchResults
from backend.benchmark.runner import RunConfig
from backend.benchmark.service import run_items
from backend.engines.base import baseline_names
from backend.simulate import Simulator
from backend.types import SamplingParams

SimulatorFor = Callable[[str, str | None], Simulator]
"""Builds a simulator from an engine name and a model (a folder for `transformers`)."""

MODEL_ENGINE = "transformers"
EVAL_DIR = "eval"


class DomainRow(BaseModel):
    """One domain of the before/after table (headline metric means, 0-1)."""

    domain: str
    headline: str
    items: int
    base: float | None
    tuned: float | None = None
    persistence: float | None = None
    oracle: float | None = None


class EvalTable(BaseModel):
    """The per-domain table and its macro averages (mean over domains, like the paper's)."""

    rows: list[DomainRow]
    macro: dict[str, float | None]


def eval_params(max_new_tokens: int, seed: int) -> SamplingParams:
    """Greedy decoding, so before and after differ by the weights alone."""
    return SamplingParams(temperature=0.0, max_new_tokens=max_new_tokens, seed=seed)


def run_eval(
    items: list[BenchItem],
    out: Path,
    label: str,
    model: str,
    simulator_for: SimulatorFor,
    params: SamplingParams,
    baselines: bool,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> BenchResults:
    """Benchmark `model` (and the baselines when asked) on the held-out items.

    The results land in `<out>/eval/<label>/`, as any benchmark run's do; a resumed call skips
    the items already done there. `progress` hears (items done, items to do) as chunks finish.
    """
    engines = [MODEL_ENGINE, *(baseline_names() if baselines else ())]
    config = RunConfig(engines=engines, concurrency=4, params=params, progress=True)
    return run_items(
        items,
        "heldout",
        out / EVAL_DIR / label,
        config,
        lambda engine: simulator_for(engine, model if engine == MODEL_ENGINE else None),
        progress=progress,
    )


def _headline(results: BenchResults | None, engine: str, domain: str) -> float | None:
    if results is None or engine not in results.engines:
        return None
    stats = results.engines[engine].domains.get(domain)
    return stats.headline_value if stats is not None else None


def before_after(before: BenchResults, after: BenchResults | None) -> EvalTable:
    """The per-domain table from the two runs (after is None until training finished)."""
    model = before.engines[MODEL_ENGINE]
    rows = [
        DomainRow(
            domain=domain,
            headline=stats.headline,
            items=stats.items,
            base=stats.headline_value,
            tuned=_headline(after, MODEL_ENGINE, domain),
            persistence=_headline(before, "persistence", domain),
            oracle=_headline(before, "oracle", domain),
        )
        for domain, stats in sorted(model.domains.items())
    ]
    macro: dict[str, float | None] = {}
    for column in ("base", "tuned", "persistence", "oracle"):
        values = [getattr(row, column) for row in rows]
        known = [v for v in values if v is not None]
        macro[column] = sum(known) / len(known) if known and len(known) == len(values) else None
    return EvalTable(rows=rows, macro=macro)


def format_eval_table(table: EvalTable) -> str:
    """The table as Markdown (for the card and the terminal)."""

    def cell(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    lines = [
        "| domain | headline | items | base | tuned | persistence | oracle |",
        "|:--|:--|--:|--:|--:|--:|--:|",
    ]
    for row in table.rows:
        values = [row.base, row.tuned, row.persistence, row.oracle]
        lines.append(
            f"| {row.domain} | {row.headline} | {row.items} | "
            + " | ".join(cell(v) for v in values)
            + " |"
        )
    macro = table.macro
    lines.append(
        "| **macro** | | | "
        + " | ".join(cell(macro.get(k)) for k in ("base", "tuned", "persistence", "oracle"))
        + " |"
    )
    return "\n".join(lines)
