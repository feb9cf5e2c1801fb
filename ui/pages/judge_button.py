"""A "Judge this" button and the verdict it shows, for any page that shows one prediction."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr

from ui.errors import guarded
from ui.judging import judge_prediction, verdict_html
from ui.services import Services


@dataclass(frozen=True)
class JudgeButton:
    """The button and where the verdict appears."""

    button: gr.Button
    verdict: gr.HTML


def render(prefix: str) -> JudgeButton:
    """Build the button (inside the caller's layout); `prefix` keeps element ids unique."""
    button = gr.Button("Judge this (LLM judge)", size="sm", elem_id=f"{prefix}-judge")
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

    def run(value: Any) -> str:
        return verdict_html(judge_prediction(services, prediction_of(value)))

    judge.button.click(
        guarded(run),
        [state],
        [judge.verdict],
        api_name=api_name,
        concurrency_limit=services.simulate_concurrency,
        concurrency_id="simulate",
    )
