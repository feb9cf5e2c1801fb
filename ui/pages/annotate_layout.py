"""The Annotate page's layout: the queue, the context the model saw, the editor and the verdict.

`ui.pages.annotate` wires it; the components are named by the fields `annotate_view.show`
fills, so an event can update only the ones it owes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.domains.base import all_domains
from storage.annotations import RULES
from ui.annotate import ERROR_TAGS, RATING_HELP, VERDICT_CHOICES
from ui.pages import annotate_filters, annotate_view, judge_button
from ui.pages.annotate_context import CONTEXT_TITLE
from ui.services import Services
from ui.shortcuts import HELP

BROWSER_KEY = "awp-annotator"
"""localStorage key of the browser's anonymous annotator key."""
BROWSER_SECRET = "awp-annotator-key"
"""BrowserState encrypts with this; a fixed one keeps identities across server restarts (the
key it protects is a random id, not a credential)."""


@dataclass(frozen=True)
class AnnotatePage:
    """The page's components."""

    state: gr.State
    browser: gr.BrowserState
    domain: gr.Dropdown
    next: gr.Button
    prediction_id: gr.Number
    open: gr.Button
    open_note: gr.HTML
    queue: gr.HTML
    header: gr.HTML
    action: gr.Code
    context_box: gr.Accordion
    context: gr.HTML
    reasoning: gr.HTML
    before: gr.HTML
    predicted: gr.HTML
    real_origin: gr.HTML
    real: gr.HTML
    editor: gr.Code
    editor_note: gr.HTML
    use_real: gr.Button
    reset: gr.Button
    preview: gr.HTML
    diff: gr.HTML
    ratings: dict[str, gr.Radio]
    verdict: gr.Radio
    tags: gr.Dropdown
    notes: gr.Textbox
    submit: gr.Button
    skip: gr.Button
    message: gr.HTML
    progress: gr.Dataframe
    judge: judge_button.JudgeButton
    filters: annotate_filters.QueueControls

    def component(self, name: str) -> Any:
        """A component by the names `annotate_view` uses (ratings as `rate_<dimension>`)."""
        if name.startswith("rate_"):
            return self.ratings[name.removeprefix("rate_")]
        return getattr(self, name)

    @property
    def shown(self) -> list[Any]:
        """Every component an event may update."""
        return [
            self.state,
            self.browser,
            self.open_note,
            self.queue,
            self.header,
            self.action,
            self.context_box,
            self.context,
            self.reasoning,
            self.before,
            self.predicted,
            self.real_origin,
            self.real,
            self.use_real,
            self.reset,
            self.editor,
            self.editor_note,
            self.preview,
            self.diff,
            *self.ratings.values(),
            self.verdict,
            self.tags,
            self.notes,
            self.message,
            self.progress,
            self.judge.verdict,
        ]


def render(services: Services) -> AnnotatePage:
    """Build the page (inside the caller's Tab)."""
    browser = gr.BrowserState("", storage_key=BROWSER_KEY, secret=BROWSER_SECRET)
    domain, next_btn, prediction_id, open_btn, open_note = _render_opener()
    filters = annotate_filters.render(services)
    queue = gr.HTML(elem_id="an-queue")
    header = gr.HTML(label="Item", elem_id="an-header")
    action = gr.Code(label="Action", interactive=False, elem_id="an-action")
    with gr.Accordion(CONTEXT_TITLE, open=False, elem_id="an-context-box") as context_box:
        context = gr.HTML(elem_id="an-context")
    with gr.Accordion("Model reasoning", open=False, elem_id="an-reasoning-box"):
        reasoning = gr.HTML(elem_id="an-reasoning")
    with gr.Accordion("State before the action", open=False):
        before = gr.HTML(label="Before")
    with gr.Row(equal_height=False):
        with gr.Column(min_width=320):
            gr.Markdown("#### Model prediction")
            predicted = gr.HTML(label="Predicted", elem_id="an-predicted")
        with gr.Column(min_width=320):
            gr.Markdown("#### Real state")
            real_origin = gr.HTML(elem_id="an-real-origin")
            real = gr.HTML(label="Real", elem_id="an-real")
    judge = judge_button.render("an", services, "annotate")
    editor, editor_note, use_real, reset, diff, preview = _render_editor()
    gr.Markdown(RULES, elem_id="an-rules")
    verdict, ratings, tags, notes = _render_grade()
    with gr.Row():
        submit = gr.Button("Submit & next", variant="primary", elem_id="an-submit", scale=3)
        skip = gr.Button("Skip", elem_id="an-skip", scale=1)
    message = gr.HTML(elem_id="an-message")
    gr.Markdown(HELP)
    with gr.Accordion("Progress", open=False):
        progress = gr.Dataframe(
            headers=list(annotate_view.PROGRESS_HEADERS),
            interactive=False,
            label="Progress",
            elem_id="an-progress",
        )
    return AnnotatePage(
        gr.State(None),
        browser,
        domain,
        next_btn,
        prediction_id,
        open_btn,
        open_note,
        queue,
        header,
        action,
        context_box,
        context,
        reasoning,
        before,
        predicted,
        real_origin,
        real,
        editor,
        editor_note,
        use_real,
        reset,
        preview,
        diff,
        ratings,
        verdict,
        tags,
        notes,
        submit,
        skip,
        message,
        progress,
        judge,
        filters,
    )


def _render_editor() -> tuple[gr.Code, gr.HTML, gr.Button, gr.Button, gr.HTML, gr.HTML]:
    """The correction's editor, its note and buttons, beside its diff and preview."""
    with gr.Row(equal_height=False):
        with gr.Column(min_width=320):
            editor = gr.Code(
                label="Corrected observation (edit the prediction into the truth)",
                lines=14,
                interactive=True,
                elem_id="an-editor",
            )
            editor_note = gr.HTML(elem_id="an-editor-note")
            with gr.Row():
                use_real = gr.Button(
                    "Use the real state", size="sm", visible=False, elem_id="an-use-real"
                )
                reset = gr.Button(
                    "Reset to the prediction", size="sm", visible=False, elem_id="an-reset"
                )
        with gr.Column(min_width=320):
            with gr.Tab("Diff"):
                diff = gr.HTML(label="Diff", elem_id="an-diff")
            with gr.Tab("Preview"):
                preview = gr.HTML(label="Preview", elem_id="an-preview")
    return editor, editor_note, use_real, reset, diff, preview


def _render_grade() -> tuple[gr.Radio, dict[str, gr.Radio], gr.Dropdown, gr.Textbox]:
    """The verdict, the ratings (one a dimension), the error tags and the notes."""
    verdict = gr.Radio(VERDICT_CHOICES, label="Verdict", elem_id="an-verdict")
    with gr.Row(equal_height=True, elem_id="an-ratings"):
        ratings = {
            name: gr.Radio(
                ["1", "2", "3", "4", "5"],
                label=name.capitalize(),
                info=help_,
                min_width=150,
                elem_id=f"an-rate-{name}",
                elem_classes="an-rating",
            )
            for name, help_ in RATING_HELP.items()
        }
    with gr.Row():
        tags = gr.Dropdown(
            list(ERROR_TAGS),
            multiselect=True,
            allow_custom_value=True,
            label="Error tags",
            scale=2,
            elem_id="an-tags",
        )
        notes = gr.Textbox(label="Notes", lines=1, scale=2, elem_id="an-notes")
    return verdict, ratings, tags, notes


def _render_opener() -> tuple[gr.Dropdown, gr.Button, gr.Number, gr.Button, gr.HTML]:
    """The queue's domain and Next item, beside Open by prediction id and its note."""
    domains = [("All domains", "")] + [(d.title, d.name) for d in all_domains()]
    with gr.Row(equal_height=True):
        domain = gr.Dropdown(domains, value="", label="Queue", scale=2, elem_id="an-domain")
        next_btn = gr.Button("Next item", variant="primary", scale=1, elem_id="an-next")
        prediction_id = gr.Number(
            None, label="Prediction #", precision=0, scale=1, elem_id="an-prediction"
        )
        with gr.Column(scale=2, min_width=200):
            open_btn = gr.Button("Open", elem_id="an-open")
            open_note = gr.HTML(elem_id="an-open-note")
    return domain, next_btn, prediction_id, open_btn, open_note
