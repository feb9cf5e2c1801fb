"""The benchmark loop: engines x items, in chunks, scored, judged and stored as they finish.

Each chunk of `concurrency` items goes to the engine as ONE `Simulator.step_batch` call, so an
engine with its own scheduler (vLLM, a remote server's continuous batching, the openai engine's
bounded thread pool) sees the whole chunk at once; chunking bounds how many requests are in
flight and how much work an interrupt can lose. A chunk that fails is retried item by item, so
one bad item (an invalid action, a prompt too long) costs only itself. With `BenchSessions`,
every prediction is also stored in SQL as a step of a bench session (scores and verdicts too).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from pydantic import BaseModel, Field
from tqdm import tqdm

from backend.benchmark.items import BenchItem
from backend.benchmark.sessions import BenchSessions
from backend.benchmark.store import ItemRow, ItemStore
from backend.errors import AWPError
from backend.scoring import headline_metric, score_observation
from backend.scoring.judge import Judge, JudgeItem
from backend.simulate import Simulator
from backend.types import HistoryMode, Prediction, SamplingParams


class RunConfig(BaseModel):
    """How to run a benchmark (the CLI options, minus where the engines come from)."""

    engines: list[str] = Field(min_length=1)
    concurrency: int = Field(default=8, ge=1)
    limit: int | None = Field(default=None, ge=1)
    history_mode: HistoryMode = HistoryMode.TEACHER_FORCED
    params: SamplingParams = Field(default_factory=SamplingParams)
    progress: bool = True


def chunks(items: Sequence[BenchItem], size: int) -> Iterator[Sequence[BenchItem]]:
    """Consecutive slices of at most `size` items."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def scored_row(engine: str, item: BenchItem, prediction: Prediction) -> ItemRow:
    """Score one prediction; a reference the metrics cannot read makes an `error` row."""
    row = ItemRow(
        engine=engine,
        model=prediction.model,
        item_id=item.item_id,
        domain=item.domain,
        status="ok",
        predicted=prediction.observation,
        finish_reason=prediction.finish_reason,
        prompt_tokens=prediction.prompt_tokens,
        completion_tokens=prediction.completion_tokens,
        latency_s=prediction.latency_s,
        diagnostics=prediction.diagnostics,
        headline=headline_metric(item.domain),
    )
    try:
        row.metrics = score_observation(
            item.domain, prediction.observation, item.reference, item.previous
        )
    except AWPError as exc:
        row.status, row.error = "error", f"scoring: {exc}"
        return row
    row.headline_value = next(m.value for m in row.metrics if m.name == row.headline)
    return row


def error_row(engine: str, model: str, item: BenchItem, exc: AWPError) -> ItemRow:
    """A counted failure: the engine could not predict this item."""
    return ItemRow(
        engine=engine,
        model=model,
        item_id=item.item_id,
        domain=item.domain,
        status="error",
        error=str(exc),
        headline=headline_metric(item.domain),
    )


def predict_chunk(
    engine: str,
    simulator: Simulator,
    chunk: Sequence[BenchItem],
    config: RunConfig,
    sessions: BenchSessions | None = None,
) -> list[ItemRow]:
    """Predict and score a chunk in one batch (on failure, item by item), storing predictions."""
    requests = [item.request(config.params, config.history_mode) for item in chunk]
    try:
        predictions: list[Prediction | AWPError] = list(simulator.step_batch(requests))
    except AWPError:
        predictions = []
        for request in requests:
            try:
                predictions.append(simulator.step(request))
            except AWPError as exc:
                predictions.append(exc)
    model = simulator.engine.model
    rows = []
    for item, request, result in zip(chunk, requests, predictions, strict=True):
        if isinstance(result, AWPError):
            rows.append(error_row(engine, model, item, result))
            continue
        row = scored_row(engine, item, result)
        if sessions is not None:
            row.prediction_id = sessions.record(engine, item, request, result, row.metrics)
        rows.append(row)
    return rows


def judge_rows(
    judge: Judge,
    chunk: Sequence[BenchItem],
    rows: list[ItemRow],
    sessions: BenchSessions | None = None,
) -> None:
    """Attach the judge's verdict to every successful row of a chunk (one batched call)."""
    pairs = [(item, row) for item, row in zip(chunk, rows, strict=True) if row.status == "ok"]
    verdicts = judge.evaluate(
        [
            JudgeItem(
                domain=item.domain,
                action=item.action,
                predicted=row.predicted,
                reference=item.reference,
                history=item.history,
                previous=item.previous,
                diagnostics=row.diagnostics,
            )
            for item, row in pairs
        ]
    )
    for (_, row), verdict in zip(pairs, verdicts, strict=True):
        row.judge = verdict
        if sessions is not None and row.prediction_id is not None:
            sessions.judged(row.prediction_id, verdict)


def run_benchmark(
    items: Sequence[BenchItem],
    config: RunConfig,
    store: ItemStore,
    simulator_for: Callable[[str], Simulator],
    judge: Judge | None = None,
    sessions: BenchSessions | None = None,
) -> int:
    """Run every engine over the items not yet done in `store`.

    Args:
        items: the dataset, in order; `config.limit` keeps the first N.
        config: engines, chunk size, history mode, sampling.
        store: where rows are appended; items it already holds as `ok` are skipped.
        simulator_for: builds the simulator of an engine name.
        judge: grades every prediction when given.
        sessions: stores every prediction in SQL as a bench session step, when given.

    Returns:
        The number of rows written by this run.
    """
    selected = list(items[: config.limit] if config.limit else items)
    done = store.done()
    written = 0
    for engine in config.engines:
        todo = [item for item in selected if (engine, item.item_id) not in done]
        if not todo:
            continue
        simulator = simulator_for(engine)
        with tqdm(total=len(todo), desc=engine, unit="item", disable=not config.progress) as bar:
            for chunk in chunks(todo, config.concurrency):
                rows = predict_chunk(engine, simulator, chunk, config, sessions)
                if judge is not None:
                    judge_rows(judge, chunk, rows, sessions)
                for row in rows:
                    store.append(row)
                written += len(rows)
                bar.update(len(chunk))
    return written
