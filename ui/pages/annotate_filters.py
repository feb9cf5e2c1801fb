"""The Annotate queue's filters: engine, session, source, trivial items, least confident first.

The filters live in one `gr.State` (a `QueueFilter` without its domain, which the page's Queue
menu gives) that every queue event of the page reads, so Next, Skip and Submit all move through
the same filtered queue. A change of filter serves the queue again (`ui.pages.annotate`), and a
value the filter cannot use is refused in `note`, beside the filters: the components carry no
bounds of their own, since Gradio refuses an out-of-bounds value before any callback runs and
says so only in the server's log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.errors import BadInputError
from storage.annotations.types import QueueFilter
from storage.models import SessionKind
from ui.annotate import default_filter
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
    note: gr.HTML

    @property
    def inputs(self) -> list[Any]:
        """The controls in the order `build` takes them."""
        return [self.engine, self.session, self.kind, self.show_trivial, self.least_confident]

    @property
    def changes(self) -> list[Any]:
        """The events that change the filter."""
        return [control.change for control in self.inputs]


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
                None,
                label="Session #",
                info="Empty or 0: any session.",
                precision=0,
                elem_id="an-f-session",
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
        note = gr.HTML(elem_id="an-f-note")
        gr.Markdown(
            "Steps whose real state nobody knows come first (after the least confident, when "
            "you ask for those): your correction is their truth."
        )
    controls = (engine, session, kind, show_trivial, least_confident, note)
    return QueueControls(gr.State(default), *controls)


def build(
    engine: str | None,
    session: float | None,
    kind: str | None,
    show_trivial: bool,
    least: bool,
) -> QueueFilter:
    """The filter the controls make; an empty or 0 session box means any session.

    Raises:
        BadInputError: the session number is negative (the box rounds it to a whole one).

    """
    if session is not None and session < 0:
        raise BadInputError(
            f"Session # {session:g} names no session: type a session's number (1 or more), "
            "or leave the box empty (or 0) for any session."
        )
    return QueueFilter(
        engine=engine or None,
        session_id=int(session) if session else None,
        kind=kind or None,
        hide_trivial=not show_trivial,
        least_confident=bool(least),
    )
