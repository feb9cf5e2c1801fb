"""The benchmark loop: engines x items, in chunks, scored, judged and stored as they finish.

Each chunk of `concurrency` items is ONE batched step (`backend.stepping.step_batch`), so an
engine with its own scheduler (vLLM, a remote server's continuous batching, the openai engine's
bounded thread pool) sees the whole chunk at once; chunking bounds how many requests are in
flight and how much work an interrupt can lose. The step path retries a failed chunk item by
item and scores every prediction by the domain's one policy. With `BenchSessions`, every
prediction is also stored in SQL as a step of a bench session (scores and verdicts too).
Run as a job (the Benchmark page), it stops before the next chunk once Cancel is pressed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from pydantic import BaseModel, Field
from tqdm import tqdm

from backend.benchmark.items import BenchItem
from backend.benchmark.sessions import BenchSessions
from backend.benchmark.store import ItemRow, ItemStore
from backend.errors import AWPError
from backend.jobs import raise_if_cancelled
from backend.provenance import stored
from backend.scoring import headline_metric
from backend.scoring.judge import Judge, JudgeItem
from backend.simulate import Simulator
from backend.stepping import Scores, step_batch
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


def scored_row(engine: str, item: BenchItem, prediction: Prediction, scores: Scores) -> ItemRow:
    """A prediction's row; a reference the metrics cannot read makes an `error` row."""
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
        metrics=scores.results,
        headline_value=scores.headline,
        grounded_by=prediction.grounded_by,
        answered_by=prediction.answered_by,
        confidence=prediction.confidence,
        history_dropped=prediction.history_dropped,
        provenance=stored(prediction.provenance) if prediction.provenance else None,
        reference_provenance=stored(item.source) if item.source else None,
        raw_output=prediction.raw_text,
    )
    if scores.problem:
        row.status, row.error = "error", scores.problem
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
    """Predict and score a chunk as one batched step, storing its predictions."""
    requests = [item.request(config.params, config.history_mode) for item in chunk]
    model = simulator.engine.model
    rows = []
    for item, (sample,) in zip(chunk, step_batch(simulator, requests), strict=True):
        if sample.prediction is None:
            rows.append(error_row(engine, model, item, sample.error or AWPError("no prediction")))
            continue
        row = scored_row(engine, item, sample.prediction, sample.scores)
        if sessions is not None:
            row.prediction_id = sessions.record(
                engine, item, sample.request, sample.prediction, sample.scores, simulator.spec
            )
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
                row=item.official_row(),
                raw_output=row.raw_output,
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
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> int:
    """Run every engine over the items not yet done in `store`.

    Args:
        items: the dataset, in order; `config.limit` keeps the first N.
        config: engines, chunk size, history mode, sampling.
        store: where rows are appended; items it already holds as `ok` are skipped.
        simulator_for: builds the simulator of an engine name.
        judge: grades every prediction when given.
        sessions: stores every prediction in SQL as a bench session step, when given.
        progress: told (items done, items to do) by this run, all engines together, at the
            start and after each chunk.

    Returns:
        The number of rows written by this run.

    Raises:
        JobCancelledError: the job it runs for was cancelled (the chunks done stay stored).
    """
    selected = list(items[: config.limit] if config.limit else items)
    done = store.done()
    todos = {
        engine: [item for item in selected if (engine, item.item_id) not in done]
        for engine in config.engines
    }
    total = sum(len(todo) for todo in todos.values())
    written = 0
    progress(0, total)
    for engine, todo in todos.items():
        if not todo:
            continue
        simulator = simulator_for(engine)
        with tqdm(total=len(todo), desc=engine, unit="item", disable=not config.progress) as bar:
            for chunk in chunks(todo, config.concurrency):
                raise_if_cancelled()
                rows = predict_chunk(engine, simulator, chunk, config, sessions)
                if judge is not None:
                    judge_rows(judge, chunk, rows, sessions)
                for row in rows:
                    store.append(row)
                written += len(rows)
                bar.update(len(chunk))
                progress(written, total)
    return written
