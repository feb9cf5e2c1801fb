"""The engine settings panel, shared by the Playground and Replay pages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.types import HistoryMode
from ui.services import EngineChoice

HISTORY_LABELS = [
    ("Teacher-forced (real history, as in the official evaluation)", HistoryMode.TEACHER_FORCED),
    ("Closed loop (the model's own predictions)", HistoryMode.CLOSED_LOOP),
    ("Blind (no history)", HistoryMode.BLIND),
]


@dataclass(frozen=True)
class EnginePanel:
    """The widgets whose values make an `EngineChoice`."""

    engine: gr.Dropdown
    model: gr.Textbox
    base_url: gr.Textbox
    history_mode: gr.Radio
    temperature: gr.Slider
    top_p: gr.Slider
    top_k: gr.Number
    max_new_tokens: gr.Number
    seed: gr.Number

    @property
    def kwargs(self) -> dict[str, Any]:
        """The widgets as keyword inputs named like `EngineChoice.from_controls` parameters.

        Keyword inputs also name the parameters of the API endpoints (`engine=`, `seed=`, ...).
        """
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def render(engines: tuple[str, ...], defaults: EngineChoice, prefix: str) -> EnginePanel:
    """Build the panel inside an accordion; `prefix` keeps element ids unique per page."""
    params = defaults.params
    with gr.Accordion("Engine and sampling", open=False, elem_id=f"{prefix}-engine-panel"):
        engine = gr.Dropdown(
            list(engines), value=defaults.engine, label="Engine", elem_id=f"{prefix}-engine"
        )
        model = gr.Textbox(defaults.model, label="Model", placeholder="engine default")
        base_url = gr.Textbox(
            defaults.base_url,
            label="OpenAI-compatible URL (openai engine)",
            placeholder="http://127.0.0.1:8000/v1",
        )
        history_mode = gr.Radio(
            [(label, mode.value) for label, mode in HISTORY_LABELS],
            value=defaults.history_mode.value,
            label="History",
        )
        with gr.Row():
            temperature = gr.Slider(0.0, 2.0, params.temperature, step=0.05, label="Temperature")
            top_p = gr.Slider(0.05, 1.0, params.top_p, step=0.05, label="Top-p")
        with gr.Row():
            top_k = gr.Number(params.top_k, label="Top-k", precision=0, minimum=0)
            max_new_tokens = gr.Number(
                params.max_new_tokens, label="Max new tokens", precision=0, minimum=1
            )
            seed = gr.Number(
                -1 if params.seed is None else params.seed, label="Seed (-1: random)", precision=0
            )
    return EnginePanel(
        engine, model, base_url, history_mode, temperature, top_p, top_k, max_new_tokens, seed
    )
