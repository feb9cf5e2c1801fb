"""A "Judge this" button and the verdict it shows, for any page that shows one prediction."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr

from ui.errors import inline
from ui.judging import judge_line, judge_prediction, verdict_html
from ui.services import Services


@dataclass(frozen=True)
class JudgeButton:
    """The button and where the verdict appears."""

    button: gr.Button
    verdict: gr.HTML


def render(prefix: str, services: Services | None = None) -> JudgeButton:
    """Build the button (inside the caller's layout); `prefix` keeps element ids unique.

    With `services`, a line under the button names the configured judge engine and model.
    """
    button = gr.Button("Judge this (LLM judge)", size="sm", elem_id=f"{prefix}-judge")
    if services is not None:
        gr.Markdown(judge_line(services), elem_id=f"{prefix}-judge-engine")
    verdict = gr.HTML(elem_id=f"{prefix}-judge-verdict")
    return JudgeButton(button, verdict)


def wire(
    judge: JudgeButton,
    state: gr.State,
    prediction_of: Callable[[Any], int | None],
    services: Services,
    api_name: str,
) -> None:
    """Grade the prediction `prediction_of(state value)` names when the button is pressed."""

    def run(value: Any) -> dict[Any, str]:
        return {judge.verdict: verdict_html(judge_prediction(services, prediction_of(value)))}

    # A refusal (no prediction yet, a judge too weak) shows where the verdict would.
    judge.button.click(
        inline(run, judge.verdict),
        [state],
        [judge.verdict],
        api_name=api_name,
        concurrency_limit=services.simulate_concurrency,
        concurrency_id="simulate",
    )
