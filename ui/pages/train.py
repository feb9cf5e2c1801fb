"""Train page (admins): start a run, watch it, compare before/after, serve the result.

A run is a job (`ui.pages.job_panel`): the line names the stage (the base model's held-out
benchmark, training, the tuned model's), counts its items or training steps with the time so
far and what is left of it, a reload reopens it, and Cancel stops the trainer after the current
step (a checkpoint saved) and records the run as interrupted.
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr
import pandas as pd

from backend.jobs import Job
from backend.training.methods import METHODS
from storage.run_kinds import TrainRun
from ui import plots
from ui.errors import guarded
from ui.pages import job_panel
from ui.services import Services
from ui.training import RUN_HEADERS, TrainRequest, run_report, run_rows, start, use_model

ADMIN_ONLY = True
"""Training loads models, reads everyone's data and changes what the Playground serves."""

REFRESH_S = 2.0


@dataclass(frozen=True)
class TrainPage:
    """The page's components."""

    method: gr.Dropdown
    data: gr.Dropdown
    max_steps: gr.Number
    max_minutes: gr.Number
    eval_split: gr.Slider
    eval_limit: gr.Number
    eval_tokens: gr.Number
    lora: gr.Checkbox
    start: gr.Button
    job: job_panel.JobPanel
    note: gr.Markdown
    runs: gr.Dataframe
    run_id: gr.Number
    report: gr.Markdown
    loss: plots.PlotSlot
    use: gr.Button
    timer: gr.Timer


def render(services: Services) -> TrainPage:
    """Build the page (inside the caller's Tab)."""
    gr.Markdown(
        "Fine-tune the world model on recordings or corrections; the held-out split is "
        "benchmarked before and after. **Admins only.**"
    )
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=300):
            method = gr.Dropdown(METHODS.names(), value="sft", label="Method", elem_id="tr-method")
            data = gr.Dropdown(
                ["recorded", "corrections"],
                value="recorded",
                label="Data",
                allow_custom_value=True,
                elem_id="tr-data",
            )
            max_steps = gr.Number(5, label="Max steps", precision=0, elem_id="tr-steps")
            max_minutes = gr.Number(5, label="Max minutes", elem_id="tr-minutes")
            eval_split = gr.Slider(0, 0.5, value=0.3, step=0.05, label="Held-out share")
            eval_limit = gr.Number(
                6, label="Held-out turns benchmarked (0: all)", precision=0, elem_id="tr-eval-limit"
            )
            eval_tokens = gr.Number(
                128,
                label="Held-out completion budget (tokens)",
                precision=0,
                minimum=1,
                elem_id="tr-eval-tokens",
            )
            lora = gr.Checkbox(True, label="LoRA (off: full fine-tuning)")
            start_button = gr.Button("Start training", variant="primary", elem_id="tr-start")
            job = job_panel.render("tr", "train", "train")
            note = gr.Markdown(elem_id="tr-note")
        with gr.Column(scale=2):
            runs = gr.Dataframe(
                headers=RUN_HEADERS, interactive=False, label="Runs", elem_id="tr-runs"
            )
            run_id = gr.Number(
                0, label="Run shown (0: the newest)", precision=0, elem_id="tr-run-id"
            )
            report = gr.Markdown(elem_id="tr-report")
            loss = plots.render(
                gr.LinePlot,
                "Training loss",
                "No loss logged yet: it is drawn once a run has trained a step.",
                x="step",
                y="loss",
                elem_id="tr-loss",
            )
            use = gr.Button("Make this the Playground's model", elem_id="tr-use")
    timer = gr.Timer(REFRESH_S)
    return TrainPage(
        method,
        data,
        max_steps,
        max_minutes,
        eval_split,
        eval_limit,
        eval_tokens,
        lora,
        start_button,
        job,
        note,
        runs,
        run_id,
        report,
        loss,
        use,
        timer,
    )


def wire(page: TrainPage, services: Services) -> None:
    """Bind the page's events: start a job, refresh from SQL every few seconds, use a model."""

    def launch(
        method: str,
        data: str,
        steps: float | None,
        minutes: float | None,
        split: float,
        limit: float | None,
        tokens: float,
        lora: bool,
        request: gr.Request,
    ) -> Job:
        ask = TrainRequest(
            method=method,
            data=data,
            max_steps=int(steps) if steps else None,
            max_minutes=float(minutes) if minutes else None,
            eval_split=split,
            eval_limit=int(limit) if limit else None,
            eval_max_new_tokens=max(1, int(tokens or 1)),
            lora=lora,
        )
        owner = services.identify(request, individual=True).name
        return start(services, services.identify(request), owner, ask)

    def shown(chosen: int) -> dict:
        listed = services.runs.list_runs(TrainRun)
        picked = [r for r in listed if r.id == chosen] or listed[:1]
        if not picked:
            return {page.runs: [], page.report: "No training runs yet.", **page.loss.show(None)}
        run = picked[0]
        curve = pd.DataFrame(run.losses, columns=["step", "loss"])
        return {page.runs: run_rows(listed), page.report: run_report(run), **page.loss.show(curve)}

    def refresh(chosen: float | None, request: gr.Request) -> dict:
        if not services.identify(request).is_admin:
            return {page.runs: [], page.report: "", **page.loss.show(None)}
        return shown(int(chosen or 0))

    def ended(run_id: int | None = None) -> dict:
        # Only a job's owner (an admin: the page is theirs) polls it, so this shows no one else.
        updates = shown(run_id or 0)
        return updates if run_id is None else {**updates, page.run_id: run_id}

    def use(chosen: float | None, request: gr.Request) -> str:
        listed = services.runs.list_runs(TrainRun)
        shown = [r for r in listed if r.id == int(chosen or 0)] or listed[:1]
        if not shown:
            return "No training runs yet."
        return use_model(services, services.identify(request), shown[0])

    inputs = [
        page.method,
        page.data,
        page.max_steps,
        page.max_minutes,
        page.eval_split,
        page.eval_limit,
        page.eval_tokens,
        page.lora,
    ]
    outputs = [page.runs, page.report, *page.loss.parts]
    job_panel.wire(
        page.job,
        services,
        page.start,
        launch,
        inputs,
        ended,  # the finished run, chosen in "Run shown"
        [*outputs, page.run_id],
        api_name="train_start",
        stopped=ended,  # a cancelled or failed run is listed as it ended
        form=True,  # a reopened job shows the settings it runs with
    )
    page.timer.tick(
        guarded(refresh), page.run_id, outputs, api_name="train_refresh", show_progress="hidden"
    )
    page.use.click(guarded(use), page.run_id, page.note, api_name="train_use")
