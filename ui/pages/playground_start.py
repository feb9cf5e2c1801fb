"""Where the Playground's real states come from: a recording, a live environment, or nowhere.

The three starts share one choice ("Real state from"), each with its own controls; this module
draws them and says, per domain, which live tasks exist or why live is not offered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.envs.live import cgroups
from backend.envs.live.base import LIVE
from backend.envs.live.run import unavailable
from ui.services import Services

SOURCES = [
    ("Recording", "recording"),
    ("Live environment", "live"),
    ("None (blank start)", "none"),
]


SWITCHED = {
    "recording": "Pick a recording and a turn, then press Start.",
    "live": "Pick a live task and press Start: until it runs, Step has no real state to compare.",
    "none": "Blank start: give an initial state if you like and press Start, or just act.",
}
"""What the page says right after the start mode changes (the old mode's session is gone)."""


@dataclass(frozen=True)
class StartControls:
    """The start choice and the controls of each start."""

    source: gr.Radio
    recording: gr.Group
    trajectory: gr.Dropdown
    start: gr.Number
    load: gr.Button
    live: gr.Group
    live_task: gr.Dropdown
    live_note: gr.Markdown
    live_hybrid: gr.Checkbox
    live_start: gr.Button
    blank_group: gr.Group
    initial: gr.Textbox
    blank: gr.Button

    @property
    def groups(self) -> list[gr.Group]:
        """The three start groups, in `SOURCES` order."""
        return [self.recording, self.live, self.blank_group]


def live_offer(services: Services, domain: str) -> tuple[list[tuple[str, str]], str]:
    """The live tasks of `domain` as dropdown choices, and a note (why none, or what runs)."""
    if services.live is None:
        return [], "Live environments are switched off on this server (`AWP_LIVE_ENABLED`)."
    reason = unavailable(domain)
    if reason:
        return [], f"No live environment for this domain here: {reason}"
    tasks = LIVE.get(domain).tasks()
    choices = [(f"{t.name} · {t.description}", t.name) for t in tasks]
    note = (
        f"Each action also runs for real in a sandboxed {domain} environment, and its result "
        "is the real next state (with Hybrid, only the actions an exact executor answers run; "
        f"the model predicts the rest). At most {services.live.capacity} run at once; one "
        f"unused for {services.live.idle_timeout_s / 60:.0f} minutes is closed. "
        f"{cgroups.limits_held(services.live.config)}"
    )
    return choices, note


def render(services: Services, domain: str, trajectories: list[tuple[str, str]]) -> StartControls:
    """Draw the start controls for `domain` (inside the caller's column)."""
    source = gr.Radio(SOURCES, value="recording", label="Real state from", elem_id="pg-source")
    with gr.Group(visible=True) as recording:
        trajectory = gr.Dropdown(
            trajectories,
            value=trajectories[0][1] if trajectories else None,
            label="Recorded trajectory",
            elem_id="pg-trajectory",
            allow_custom_value=True,  # choices change per domain; the store checks the id
        )
        # One under the other, as in the other modes: side by side in the narrow column, the
        # button sat at the top of a grey block as tall as the field.
        start = gr.Number(0, label="Recorded turns kept as history", precision=0, minimum=0)
        load = gr.Button("Start", variant="primary", elem_id="pg-load")
    choices, note = live_offer(services, domain)
    with gr.Group(visible="hidden") as live:
        live_task = gr.Dropdown(
            choices,
            value=choices[0][1] if choices else None,
            label="Live task",
            elem_id="pg-live-task",
            allow_custom_value=True,
        )
        live_note = gr.Markdown(note, elem_id="pg-live-note")
        live_hybrid = gr.Checkbox(
            False,
            label="Hybrid: run only exact actions live (swe edits, read-only MCP tools)",
            info="Then only those run for real; the model predicts the rest (tests, shell) "
            "from the true file state.",
            elem_id="pg-live-hybrid",
        )
        live_start = gr.Button("Start", variant="primary", elem_id="pg-live-start")
    with gr.Group(visible="hidden") as blank_group:
        initial = gr.Textbox(label="Initial state (optional)", lines=4)
        blank = gr.Button("Start", variant="primary", elem_id="pg-blank")
    return StartControls(
        source,
        recording,
        trajectory,
        start,
        load,
        live,
        live_task,
        live_note,
        live_hybrid,
        live_start,
        blank_group,
        initial,
        blank,
    )


def show_source(source: str) -> list[Any]:
    """Show the controls of the chosen start only."""
    return [gr.Group(visible=True if value == source else "hidden") for _, value in SOURCES]


def for_domain(services: Services, domain: str) -> list[Any]:
    """The live task choices and note of `domain` (what a domain change updates)."""
    choices, note = live_offer(services, domain)
    return [gr.Dropdown(choices=choices, value=choices[0][1] if choices else None), note]
