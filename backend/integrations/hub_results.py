"""Benchmark and training results as the Hub's evaluation-results files (`.eval_results/*.yaml`).

A model repository carries its scores as YAML files in `.eval_results/`, one entry per
benchmark task, which the Hub shows on the model page and aggregates into the benchmark
dataset's leaderboard. The entries are built and serialised with `huggingface_hub`'s own
`EvalResultEntry` and `eval_result_entries_to_yaml`, and read back with
`parse_eval_result_entries` before anything is pushed. One task per domain plus `overall` (the
macro mean over domains, the paper's Overall); the value is the judge's 0-100 score when a
judge graded the run, else the domain's headline metric x100, and `notes` names which, with the
metric's or judge prompt's version, so a number is never read without what produced it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from backend.benchmark.results import BenchResults, EngineStats
from backend.errors import BadInputError
from backend.training.evaluate import EvalTable

RESULTS_DIR = ".eval_results"
OVERALL = "overall"
AGENTWORLDBENCH = "Qwen/AgentWorldBench"


def _entry(dataset_id: str, task_id: str, value: float, notes: str, date: str | None) -> Any:
    from huggingface_hub import EvalResultEntry

    return EvalResultEntry(
        dataset_id=dataset_id, task_id=task_id, value=round(value, 2), notes=notes, date=date
    )


def engine_entries(
    stats: EngineStats, dataset_id: str, history_mode: str, date: str | None = None
) -> list[Any]:
    """One engine's benchmark results as entries: judge scores when judged, else headlines."""
    judged = stats.judge_overall is not None and stats.judge_overall.macro is not None
    entries = []
    for domain, row in sorted(stats.domains.items()):
        if judged and row.judge is not None and row.judge.score_100 is not None:
            versions = ", ".join(row.judge.prompt_versions)
            notes = f"judge {', '.join(row.judge.judge_models)} (prompt {versions}), 0-100"
            entries.append(_entry(dataset_id, domain, row.judge.score_100, notes, date))
        elif not judged and row.headline_value is not None:
            notes = f"{row.headline} v{row.headline_version} x100, {history_mode}"
            entries.append(_entry(dataset_id, domain, row.headline_value * 100, notes, date))
    overall = stats.judge_overall if judged else stats.headline_overall
    if overall is not None and overall.macro is not None:
        scale = 1.0 if judged else 100.0
        what = "judge 0-100" if judged else "headline metrics x100"
        notes = f"macro mean over domains of the {what}, {history_mode}"
        entries.append(_entry(dataset_id, OVERALL, overall.macro * scale, notes, date))
    return entries


def bench_entries(results: BenchResults, engine: str, dataset_id: str) -> list[Any]:
    """The entries of one engine of a benchmark run.

    Raises:
        BadInputError: the run has no such engine.
    """
    if engine not in results.engines:
        raise BadInputError(f"The run has no engine {engine!r}: {', '.join(results.engines)}.")
    return engine_entries(
        results.engines[engine], dataset_id, results.history_mode, results.created_at
    )


def train_entries(table: EvalTable, dataset_id: str, data: str) -> list[Any]:
    """The tuned model's held-out results (headline metrics) as entries."""
    notes_of = f"held-out split of {data}, teacher_forced, greedy"
    entries = [
        _entry(dataset_id, row.domain, row.tuned * 100, f"{row.headline} x100, {notes_of}", None)
        for row in table.rows
        if row.tuned is not None
    ]
    macro = table.macro.get("tuned")
    if macro is not None:
        notes = f"macro mean over domains of the headline metrics x100, {notes_of}"
        entries.append(_entry(dataset_id, OVERALL, macro * 100, notes, None))
    return entries


def write_results(folder: Path, name: str, entries: list[Any]) -> Path:
    """Write `folder/.eval_results/<name>.yaml` and check that the Hub's parser reads it back.

    Raises:
        BadInputError: there is nothing to write (no domain has a score).
    """
    import yaml
    from huggingface_hub import eval_result_entries_to_yaml, parse_eval_result_entries

    if not entries:
        raise BadInputError("No domain has a score to publish as an evaluation result.")
    path = folder / RESULTS_DIR / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = eval_result_entries_to_yaml(entries)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    if parse_eval_result_entries(yaml.safe_load(path.read_text(encoding="utf-8"))) != entries:
        raise RuntimeError(f"{path} does not read back as it was written")
    return path


def publishing_target(
    engines: list[str], dataset: str, results_dataset: str | None
) -> tuple[str, str]:
    """The engine whose results are published and the Hub benchmark they are for.

    Checked before a run starts, so a run meant for the Hub never ends unpublishable.

    Raises:
        BadInputError: not exactly one engine that is not a baseline, or no Hub benchmark to
            name (a dataset other than AgentWorldBench rows without `results_dataset`).
    """
    from backend.engines.base import baseline_names

    models = [name for name in engines if name not in baseline_names()]
    if len(models) != 1:
        raise BadInputError(
            "--push publishes one model's results: run one engine that is not a baseline "
            f"(this run has {', '.join(models) or 'only baselines'})."
        )
    if results_dataset is not None:
        return models[0], results_dataset
    if dataset == "bundled":
        raise BadInputError(
            "--push needs --results-dataset: the bundled recordings are no Hub benchmark."
        )
    return models[0], AGENTWORLDBENCH


def publish_bench(
    results: BenchResults, out: Path, dataset: str, results_dataset: str | None
) -> tuple[Path, str]:
    """Write a benchmark run's evaluation results beside a model card in `<out>/hub`.

    Returns:
        The folder to upload, and its card.

    Raises:
        BadInputError: see `publishing_target`.
    """
    engine, dataset_id = publishing_target(list(results.engines), dataset, results_dataset)
    folder = out / "hub"
    name = dataset_id.rsplit("/", 1)[-1].lower()
    write_results(folder, name, bench_entries(results, engine, dataset_id))
    card = results_card(results, engine, dataset_id)
    (folder / "README.md").write_text(card, encoding="utf-8")
    return folder, card


def results_card(results: BenchResults, engine: str, dataset_id: str) -> str:
    """The model card written beside a benchmark run's evaluation results."""
    stats = results.engines[engine]
    versions = (results.reproduction.metric_versions if results.reproduction else {}) or {}
    listed = "\n".join(f"| `{name}` | {version} |" for name, version in sorted(versions.items()))
    return "\n".join(
        [
            "---",
            "tags:",
            "- world-model",
            "- agentworld-playground",
            "---",
            "",
            f"# {stats.model}: AgentWorld world-model benchmark",
            "",
            f"Benchmarked with AgentWorld Playground (`awp bench`) on `{results.dataset}` "
            f"({stats.items} items, {results.history_mode}); results for `{dataset_id}` are in "
            f"`{RESULTS_DIR}/`. Every value names its metric (or judge prompt) version.",
            "",
            "| metric | version |",
            "|---|--:|",
            listed,
            "",
        ]
    )
