"""Benchmark page: pick a dataset, engines and a judge; run with a progress bar; read results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.benchmark.items import DATASETS
from backend.engines.base import engine_spec
from backend.types import HistoryMode
from ui.bench import PAST_HEADERS, Benchmarks, BenchRequest, table
from ui.errors import guarded
from ui.services import Services

NO_JUDGE = "(no judge)"


@dataclass(frozen=True)
class BenchmarkPage:
    """The page's components."""

    dataset: gr.Dropdown
    engines: gr.CheckboxGroup
    judge: gr.Dropdown
    limit: gr.Number
    history_mode: gr.Radio
    run: gr.Button
    status: gr.Markdown
    results: gr.Dataframe
    chart: gr.Image
    past: gr.Dataframe
    run_id: gr.Dropdown
    show: gr.Button
    refresh: gr.Button


def render(services: Services) -> BenchmarkPage:
    """Build the page (inside the caller's Tab)."""
    runs, choices = Benchmarks(services).listing()
    # The default selection finishes in seconds on any machine: the baselines. A model engine
    # is one tick away (the embedded one takes minutes for 20 items on a CPU).
    chosen = [name for name in services.engines if engine_spec(name).baseline]
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=300):
            dataset = gr.Dropdown(
                DATASETS.names(),
                value="bundled",
                allow_custom_value=True,
                label="Dataset (a name; admins may give a server path)",
                elem_id="bm-dataset",
            )
            engines = gr.CheckboxGroup(
                list(services.engines), value=chosen, label="Engines", elem_id="bm-engines"
            )
            judge = gr.Dropdown([NO_JUDGE, *services.engines], value=NO_JUDGE, label="Judge")
            limit = gr.Number(20, label="Items (first N; 0 for all)", precision=0, minimum=0)
            history_mode = gr.Radio(
                [HistoryMode.TEACHER_FORCED.value, HistoryMode.BLIND.value],
                value=HistoryMode.TEACHER_FORCED.value,
                label="History",
            )
            run = gr.Button("Run benchmark", variant="primary", elem_id="bm-run")
        with gr.Column(scale=2):
            status = gr.Markdown("Results appear here.", label="Status", elem_id="bm-status")
            chart = gr.Image(
                label="Per-domain chart", type="filepath", interactive=False, elem_id="bm-chart"
            )
    results = gr.Dataframe(
        label="Headline metric x100 per domain (each column names its metric)",
        interactive=False,
        wrap=True,
        elem_id="bm-results",
    )
    with gr.Accordion("Past runs", open=True):
        past = gr.Dataframe(
            runs or None,
            headers=PAST_HEADERS,
            interactive=False,
            label="Past runs",
            show_label=False,
            elem_id="bm-past",
        )
        with gr.Row():
            run_id = gr.Dropdown(choices, label="Run", allow_custom_value=True, scale=3)
            show = gr.Button("Show", scale=1)
            refresh = gr.Button("Refresh", scale=1)
    return BenchmarkPage(
        dataset,
        engines,
        judge,
        limit,
        history_mode,
        run,
        status,
        results,
        chart,
        past,
        run_id,
        show,
        refresh,
    )


def wire(page: BenchmarkPage, services: Services) -> None:
    """Bind the page's events to the benchmark service."""
    benchmarks = Benchmarks(services)

    def listing() -> tuple[Any, Any]:
        rows, choices = benchmarks.listing()
        return gr.Dataframe(rows or None, headers=PAST_HEADERS), gr.Dropdown(choices)

    def run(
        dataset: str,
        engines: list[str],
        judge: str,
        limit: float | None,
        history: str,
        request: gr.Request,
        progress: gr.Progress = gr.Progress(track_tqdm=True),  # noqa: B008 - Gradio's marker
    ) -> list[Any]:
        user = services.identify(request)
        ask = BenchRequest(
            dataset,
            engines,
            None if judge == NO_JUDGE else judge,
            int(limit) if limit else None,
            HistoryMode(history),
            services.defaults.params,
        )
        results, chart = benchmarks.run(user, ask)
        headers, rows = table(results)
        note = (
            f"Finished: {results.dataset}, {results.history_mode}. Overall macro = mean of domains."
        )
        return [note, gr.Dataframe(rows, headers=headers), str(chart), *listing()]

    def show(run_id: str) -> list[Any]:
        past = benchmarks.load(run_id)
        image = str(past.chart) if past.chart else None
        if past.results is None:
            return [past.note(), gr.Dataframe(None), image]
        headers, rows = table(past.results)
        return [past.note(), gr.Dataframe(rows, headers=headers), image]

    inputs = [page.dataset, page.engines, page.judge, page.limit, page.history_mode]
    page.run.click(
        guarded(run),
        inputs,
        [page.status, page.results, page.chart, page.past, page.run_id],
        api_name="bench_run",
        concurrency_limit=services.simulate_concurrency,
        concurrency_id="simulate",
        show_progress_on=[page.results],
    )
    page.show.click(
        guarded(show),
        [page.run_id],
        [page.status, page.results, page.chart],
        api_name="bench_show",
        concurrency_limit=None,
    )
    page.refresh.click(
        guarded(listing),
        None,
        [page.past, page.run_id],
        api_name="bench_past",
        concurrency_limit=None,
    )
