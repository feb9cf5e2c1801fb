"""A "Judge this" button and the verdict it shows, for any page that shows one prediction."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.jobs import Job
from backend.scoring.judge import JudgeResult
from ui.judging import judge_job, judge_line, verdict_html
from ui.pages import job_panel
from ui.services import Services


@dataclass(frozen=True)
class JudgeButton:
    """The button and where the verdict appears."""

    button: gr.Button
    job: job_panel.JobPanel
    verdict: gr.HTML


def render(prefix: str, services: Services, page: str) -> JudgeButton:
    """Build the button (inside the caller's layout on `page`); `prefix` keeps ids unique.

    A line under the button names the configured judge engine and model.
    """
    button = gr.Button("Judge this (LLM judge)", size="sm", elem_id=f"{prefix}-judge")
    gr.Markdown(judge_line(services), elem_id=f"{prefix}-judge-engine")
    # One job kind per page holding a button, so a `?job=` link reopens it where it started.
    job = job_panel.render(f"{prefix}-judge", f"judge-{page}", page)
    verdict = gr.HTML(elem_id=f"{prefix}-judge-verdict")
    return JudgeButton(button, job, verdict)


def wire(
    judge: JudgeButton,
    state: gr.State,
    prediction_of: Callable[[Any], int | None],
    services: Services,
    api_name: str,
) -> None:
    """Grade the prediction `prediction_of(state value)` names when the button is pressed."""

    def start(value: Any, request: gr.Request) -> Job:
        owner = services.identify(request, individual=True).name
        return judge_job(services, prediction_of(value), owner, judge.job.kind)

    def show(result: JudgeResult) -> dict[Any, str]:
        return {judge.verdict: verdict_html(result)}

    # A refusal (no prediction yet, a judge too weak) shows in the job line, before any job.
    job_panel.wire(
        judge.job, services, judge.button, start, [state], show, [judge.verdict], api_name
    )
