"""The Annotate queue's filters: engine, session, source, trivial items, least confident first.

The filters live in one `gr.State` (a `QueueFilter` without its domain, which the page's Queue
menu gives) that every queue event of the page reads, so Next, Skip and Submit all move through
the same filtered queue.
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from storage.annotations.types import QueueFilter
from storage.models import SessionKind
from ui.annotate import default_filter
from ui.errors import guarded
from ui.services import Services

ANY = ""


@dataclass(frozen=True)
class QueueControls:
    """The filter controls and the filter they make."""

    state: gr.State
    engine: gr.Dropdown
    session: gr.Number
    kind: gr.Dropdown
    show_trivial: gr.Checkbox
    least_confident: gr.Checkbox


def render(services: Services) -> QueueControls:
    """Draw the filters (folded: the defaults suit most reviewers)."""
    default = default_filter(services)
    with gr.Accordion("Queue filters", open=False, elem_id="an-filters"):
        with gr.Row(equal_height=True):
            engine = gr.Dropdown(
                [("Any engine", ANY)] + [(e, e) for e in services.engines],
                value=ANY,
                label="Engine",
                elem_id="an-f-engine",
            )
            session = gr.Number(
                None, label="Session #", precision=0, minimum=1, elem_id="an-f-session"
            )
            kind = gr.Dropdown(
                [("Any source", ANY)] + [(k.value, k.value) for k in SessionKind],
                value=ANY,
                label="Source (what made the session)",
                elem_id="an-f-kind",
            )
            show_trivial = gr.Checkbox(
                not default.hide_trivial,
                label="Show baselines and exact matches",
                info="Hidden by default: correcting an oracle copy of the truth teaches nothing.",
                elem_id="an-f-trivial",
            )
            least_confident = gr.Checkbox(
                False,
                label="Least confident first",
                info="Where the model doubted itself, your review is worth the most.",
                elem_id="an-least-confident",
            )
        gr.Markdown(
            "Steps whose real state nobody knows come first: your correction is their truth."
        )
    return QueueControls(gr.State(default), engine, session, kind, show_trivial, least_confident)


def wire(controls: QueueControls) -> None:
    """Rebuild the filter whenever a control changes."""

    def build(
        engine: str, session: float | None, kind: str, show_trivial: bool, least: bool
    ) -> QueueFilter:
        return QueueFilter(
            engine=engine or None,
            session_id=int(session) if session else None,
            kind=kind or None,
            hide_trivial=not show_trivial,
            least_confident=bool(least),
        )

    inputs = [
        controls.engine,
        controls.session,
        controls.kind,
        controls.show_trivial,
        controls.least_confident,
    ]
    gr.on(
        [
            controls.engine.change,
            controls.session.change,
            controls.kind.change,
            controls.show_trivial.change,
            controls.least_confident.change,
        ],
        guarded(build),
        inputs,
        controls.state,
        concurrency_limit=None,
    )
