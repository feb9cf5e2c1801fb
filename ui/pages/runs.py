"""Runs history: every benchmark, rollout and training run from the one run store, newest first.

A run opens with its spec, status, progress and message; a benchmark run also lists its items
(one per engine and recorded step), each opened in full: history, prediction, truth, diff,
scores and the judge's reasons. `?run=<id>` opens a run and `&item=<prediction id>` an item.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.errors import BadInputError, NotFoundError
from backend.spec import describe
from storage.run_kinds import BenchRun, RolloutRun, TrainRun
from storage.runs import RunRecord
from ui.errors import inline, inline_error
from ui.provenance import correction_ids
from ui.renderers.base import esc
from ui.services import Services
from ui.session_view import grounding_refs, history_html, step_html
from ui.views import empty

KINDS: tuple[type[RunRecord], ...] = (BenchRun, RolloutRun, TrainRun)
HEADERS = ["id", "kind", "status", "done", "total", "failures", "owner", "started"]
ITEM_HEADERS = ["item", "session", "step", "domain", "engine", "first score"]


@dataclass(frozen=True)
class RunsPage:
    """The page's components."""

    table: gr.Dataframe
    refresh: gr.Button
    run_id: gr.Number
    open: gr.Button
    message: gr.HTML
    detail: gr.HTML
    items: gr.Dataframe
    item: gr.HTML


def render(services: Services) -> RunsPage:
    """Build the page (inside the caller's Tab)."""
    gr.Markdown(
        "Every benchmark, rollout and training run, from the CLI or this app, newest first. "
        "Click a row to open it; a benchmark run lists its items."
    )
    table = gr.Dataframe(headers=HEADERS, interactive=False, label="Runs", elem_id="ru-table")
    with gr.Row(equal_height=True):
        run_id = gr.Number(label="Run id", precision=0, minimum=1, elem_id="ru-id")
        open_ = gr.Button("Open", scale=0, elem_id="ru-open")
        refresh = gr.Button("Refresh", scale=0, elem_id="ru-refresh")
    message = gr.HTML(elem_id="ru-message")
    detail = gr.HTML(empty("Open a run to read it."), elem_id="ru-detail")
    items = gr.Dataframe(
        headers=ITEM_HEADERS,
        interactive=False,
        label="Items (click one to open it)",
        elem_id="ru-items",
    )
    item = gr.HTML(elem_id="ru-item")
    return RunsPage(table, refresh, run_id, open_, message, detail, items, item)


def all_runs(services: Services, limit: int = 100) -> list[RunRecord]:
    """Runs of every kind, newest first."""
    runs = [run for kind in KINDS for run in services.runs.list_runs(kind, limit)]
    return sorted(runs, key=lambda r: r.id, reverse=True)[:limit]


def find_run(services: Services, run_id: int) -> RunRecord:
    """The run with that id, whatever its kind.

    Raises:
        NotFoundError: no run has that id.
    """
    for kind in KINDS:
        try:
            return services.runs.get(kind, run_id)
        except NotFoundError:
            continue
    raise NotFoundError(f"Run {run_id} does not exist.")


def table_rows(runs: list[RunRecord]) -> list[list[Any]]:
    """One row per run."""
    return [
        [
            r.id,
            r.label.removesuffix(" run").lower(),
            r.status,
            r.done,
            r.total,
            r.failures,
            r.owner or "",
            r.created_at.strftime("%Y-%m-%d %H:%M"),
        ]
        for r in runs
    ]


def worlds_html(run: RunRecord) -> str:
    """The world (or worlds) the run measured in, in words, and its judge's."""
    lines = [f"<li>World: {esc(words)}</li>" for words in run.world_words()]
    judge = run.spec.get("judge_world")
    if isinstance(judge, dict):
        lines.append(f"<li>Judge: {esc(describe(judge))}</li>")
    if not lines:
        return "<div class='awp-note'>No world spec stored (a run from before specs).</div>"
    return f"<ul class='awp-worlds'>{''.join(lines)}</ul>"


def detail_html(run: RunRecord) -> str:
    """What the run asked (its world spec in words), how far it got, and what it said."""
    spec = esc(json.dumps(dict(run.spec), indent=1, default=str)[:4000])
    message = f"<div>{esc(run.message)}</div>" if run.message else ""
    return (
        f'<div class="awp-run"><b>{esc(run.label)} {run.id}</b> · {esc(run.status)} · '
        f"{run.done} of {run.total or '?'} done, {run.failures} failed · by "
        f"{esc(run.owner or 'the CLI')} · {run.created_at:%Y-%m-%d %H:%M}{message}"
        f"{worlds_html(run)}"
        f'<details class="awp-more"><summary>Spec</summary><pre class="awp-text">{spec}'
        "</pre></details></div>"
    )


def bench_items(services: Services, run_id: int) -> list[list[Any]]:
    """One row per prediction of a benchmark run: item (prediction id), session, step, score."""
    out: list[list[Any]] = []
    for summary in services.sessions.list_sessions(bench_run_id=run_id, limit=10_000):
        stored = services.sessions.load_session(summary.id)
        for step in stored.steps:
            for pred in step.predictions:
                headline = next(iter(pred.scores), None)
                out.append(
                    [
                        pred.prediction_id,
                        stored.id,
                        step.index + 1,
                        stored.domain,
                        pred.prediction.engine,
                        f"{headline.name} {headline.value:.2f}" if headline else "",
                    ]
                )
    return sorted(out, key=lambda row: row[0])


def item_html(services: Services, session_id: int, prediction_id: int) -> str:
    """One benchmark item in full: its history, prediction, truth, diff, scores, judge."""
    stored = services.sessions.load_session(session_id)
    for index, step in enumerate(stored.steps):
        if any(p.prediction_id == prediction_id for p in step.predictions):
            refs = correction_ids(grounding_refs(stored, [index]))
            return (
                f"<h4>Item {prediction_id} · session #{stored.id}</h4>"
                + history_html(stored, index)
                + step_html(stored, index, services.annotations.places(refs))
            )
    raise NotFoundError(f"Item {prediction_id} is not in session #{session_id}.")


def open_run(page: RunsPage, services: Services, run_id: int, item: int | None) -> dict[Any, Any]:
    """The run's detail, its items when it is a benchmark, and item `item` opened."""
    run = find_run(services, run_id)
    items = bench_items(services, run.id) if isinstance(run, BenchRun) else []
    updates: dict[Any, Any] = {
        page.run_id: run.id,
        page.detail: detail_html(run),
        page.items: gr.Dataframe(items or None, headers=ITEM_HEADERS),
        page.item: empty("Click an item to open it.") if items else "",
    }
    if item is not None:
        row = next((r for r in items if r[0] == item), None)
        if row is None:
            raise NotFoundError(f"Run {run.id} has no item {item}.")
        updates[page.item] = item_html(services, row[1], item)
    return updates


def wire(page: RunsPage, services: Services) -> None:
    """Bind the page's events; errors show in the page's one message line."""

    def listing() -> dict[Any, Any]:
        return {page.table: gr.Dataframe(table_rows(all_runs(services)) or None, headers=HEADERS)}

    def opened(run_id: float | None) -> dict[Any, Any]:
        if not run_id:
            raise BadInputError("Give a run id, or click a row of the table.")
        return open_run(page, services, int(run_id), None)

    def picked(event: gr.SelectData) -> dict[Any, Any]:
        return opened(float(event.row_value[0])) if event.row_value else {}

    def item_picked(event: gr.SelectData) -> dict[Any, Any]:
        if not event.row_value:
            return {}
        prediction_id, session_id = int(event.row_value[0]), int(event.row_value[1])
        return {page.item: item_html(services, session_id, prediction_id)}

    cheap: dict[str, Any] = {"concurrency_limit": None}
    shown = [page.run_id, page.detail, page.items, page.item, page.message]
    page.refresh.click(inline(listing, page.message), None, [page.table, page.message], **cheap)
    page.open.click(
        inline(opened, page.message), [page.run_id], shown, api_name="runs_open", **cheap
    )
    page.table.select(inline(picked, page.message), None, shown, **cheap)
    page.items.select(inline(item_picked, page.message), None, [page.item, page.message], **cheap)


def on_load(page: RunsPage, services: Services, query: dict[str, str]) -> dict[Any, Any]:
    """The page's first contents: the run list, and the `?run=` run (and `&item=`) opened."""
    updates: dict[Any, Any] = {
        page.table: gr.Dataframe(table_rows(all_runs(services)) or None, headers=HEADERS)
    }
    wanted, item = query.get("run", ""), query.get("item", "")
    if wanted.isdigit():
        try:
            updates |= open_run(page, services, int(wanted), int(item) if item.isdigit() else None)
        except Exception as exc:  # a stale link says so beside the control, nothing else
            updates[page.message] = inline_error(exc)
    return updates


def load_outputs(page: RunsPage) -> list[Any]:
    """What `on_load` may fill."""
    return [page.table, page.run_id, page.detail, page.items, page.item, page.message]
