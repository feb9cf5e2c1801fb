"""Benchmark page: pick a dataset, engines and a judge; run it as a job; read results.

A run is a job (`ui.pages.job_panel`): the line shows the items done, the time so far and what
is left, a reload reopens it, and Cancel stops it before its next chunk of items (the engine
stops mid-chunk) and records the run as interrupted, its finished items kept for `--resume`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from backend.benchmark.items import DATASETS
from backend.benchmark.results import BenchResults
from backend.engines.base import engine_spec
from backend.jobs import Job
from backend.types import HistoryMode
from ui import plots
from ui.bench import PAST_HEADERS, RESULT_HEADERS, Benchmarks, BenchRequest, table
from ui.errors import guarded
from ui.pages import job_panel
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
    grounding: gr.Checkbox
    record_answers: gr.Checkbox
    run: gr.Button
    job: job_panel.JobPanel
    status: gr.Markdown
    results: gr.Dataframe
    chart: plots.PlotSlot
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
            # Off by default, as for `awp bench`: the figures measure the model.
            grounding = gr.Checkbox(
                False,
                label="Grounding: show real transitions of other recordings",
                elem_id="bm-grounding",
            )
            record_answers = gr.Checkbox(
                False,
                label="Record answers: answer exact matches from the record, without the model",
                elem_id="bm-record",
            )
            run = gr.Button("Run benchmark", variant="primary", elem_id="bm-run")
            job = job_panel.render("bm", "bench", "benchmark")
        with gr.Column(scale=2):
            status = gr.Markdown("Results appear here.", label="Status", elem_id="bm-status")
            chart = plots.render(
                gr.Image,
                "Per-domain chart",
                "No chart yet: run a benchmark, or show a past run, to chart its domains.",
                type="filepath",
                interactive=False,
                elem_id="bm-chart",
            )
    results = gr.Dataframe(
        headers=RESULT_HEADERS,
        label="Headline metric x100 per domain (each column names its metric)",
        interactive=False,
        wrap=True,
        elem_id="bm-results",
    )
    past, run_id, show, refresh = _render_past(runs, choices)
    return BenchmarkPage(
        dataset,
        engines,
        judge,
        limit,
        history_mode,
        grounding,
        record_answers,
        run,
        job,
        status,
        results,
        chart,
        past,
        run_id,
        show,
        refresh,
    )


def _render_past(
    runs: list[list[str]], choices: list[tuple[str, str]]
) -> tuple[gr.Dataframe, gr.Dropdown, gr.Button, gr.Button]:
    """The past runs: their table, the menu of their ids, Show and Refresh."""
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
    return past, run_id, show, refresh


def wire(page: BenchmarkPage, services: Services) -> None:
    """Bind the page's events to the benchmark service."""
    benchmarks = Benchmarks(services)
    _wire_run(page, services, benchmarks)
    _wire_past(page, benchmarks)


def past_runs(benchmarks: Benchmarks) -> tuple[Any, Any]:
    """The table of past runs and the menu of their ids."""
    rows, choices = benchmarks.listing()
    return gr.Dataframe(rows or None, headers=PAST_HEADERS), gr.Dropdown(choices)


def _wire_run(page: BenchmarkPage, services: Services, benchmarks: Benchmarks) -> None:
    """Run a benchmark as a job; a run that ends, however it ends, is listed."""

    def relisted() -> dict[Any, Any]:
        past, run_id = past_runs(benchmarks)
        return {page.past: past, page.run_id: run_id}

    def start(
        dataset: str,
        engines: list[str],
        judge: str,
        limit: float | None,
        history: str,
        grounding: bool,
        record_answers: bool,
        request: gr.Request,
    ) -> Job:
        user = services.identify(request)
        owner = services.identify(request, individual=True).name
        ask = BenchRequest(
            dataset,
            engines,
            None if judge == NO_JUDGE else judge,
            int(limit) if limit else None,
            HistoryMode(history),
            services.defaults.params,
            bool(grounding),
            bool(record_answers),
        )
        benchmarks.check(user, ask)  # refused at once, before a job starts

        def bench(job: Job) -> tuple[BenchResults, Path]:
            return benchmarks.run(user, ask, job.advance)

        title = f"Benchmark of {', '.join(engines)} on {dataset}"
        total = ask.limit * len(engines) if ask.limit else None
        return services.jobs.submit("bench", owner, title, bench, total=total, unit="items")

    def finished(result: tuple[BenchResults, Path]) -> dict[Any, Any]:
        results, chart = result
        headers, rows = table(results)
        note = (
            f"Finished: {results.dataset}, {results.history_mode}. Overall macro = mean of domains."
        )
        return {
            page.status: note,
            page.results: gr.Dataframe(rows, headers=headers),
            **page.chart.show(str(chart)),
            **relisted(),
        }

    inputs = [
        page.dataset,
        page.engines,
        page.judge,
        page.limit,
        page.history_mode,
        page.grounding,
        page.record_answers,
    ]
    job_panel.wire(
        page.job,
        services,
        page.run,
        start,
        inputs,
        finished,
        [page.status, page.results, *page.chart.parts, page.past, page.run_id],
        api_name="bench_run",
        stopped=relisted,  # a cancelled or failed run is listed as it ended
        form=True,  # a reopened job shows the settings it runs with
    )


def _wire_past(page: BenchmarkPage, benchmarks: Benchmarks) -> None:
    """Show a past run again (its table and chart), and refresh the list of runs."""

    def listing() -> tuple[Any, Any]:
        return past_runs(benchmarks)

    def show(run_id: str) -> dict[Any, Any]:
        past = benchmarks.load(run_id)
        chart = page.chart.show(
            str(past.chart) if past.chart else None, "This run stored no chart."
        )
        if past.results is None:
            return {
                page.status: past.note(),
                page.results: gr.Dataframe(None, headers=RESULT_HEADERS),
                **chart,
            }
        headers, rows = table(past.results)
        return {
            page.status: past.note(),
            page.results: gr.Dataframe(rows, headers=headers),
            **chart,
        }

    page.show.click(
        guarded(show),
        [page.run_id],
        [page.status, page.results, *page.chart.parts],
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
