"""Annotate page: the review queue, an editor pre-filled with the prediction, ratings, progress."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.domains.base import all_domains
from ui.annotate import ERROR_TAGS, RATING_NAMES, Annotator, Draft
from ui.errors import guarded
from ui.pages import annotate_view
from ui.services import Services
from ui.shortcuts import HELP


@dataclass(frozen=True)
class AnnotatePage:
    """The page's components."""

    state: gr.State
    domain: gr.Dropdown
    next: gr.Button
    prediction_id: gr.Number
    open: gr.Button
    header: gr.HTML
    action: gr.Code
    before: gr.HTML
    predicted: gr.HTML
    real: gr.HTML
    editor: gr.Code
    preview: gr.HTML
    diff: gr.HTML
    ratings: dict[str, gr.Radio]
    verdict: gr.Radio
    tags: gr.Dropdown
    notes: gr.Textbox
    submit: gr.Button
    skip: gr.Button
    message: gr.Markdown
    progress: gr.Dataframe

    @property
    def shown(self) -> list[Any]:
        """What `annotate_view.show` fills, in order."""
        return [self.state, self.header, self.action, self.before, self.predicted, self.real,
                self.editor, self.preview, self.diff, *self.ratings.values(), self.verdict,
                self.tags, self.notes, self.message, self.progress]  # fmt: skip


def render(services: Services) -> AnnotatePage:
    """Build the page (inside the caller's Tab)."""
    domains = [("All domains", "")] + [(d.title, d.name) for d in all_domains()]
    with gr.Row(equal_height=True):
        domain = gr.Dropdown(domains, value="", label="Queue", scale=2, elem_id="an-domain")
        next_btn = gr.Button("Next item", variant="primary", scale=1, elem_id="an-next")
        prediction_id = gr.Number(None, label="Prediction #", precision=0, scale=1)
        open_btn = gr.Button("Open", scale=1, elem_id="an-open")
    header = gr.HTML(label="Item", elem_id="an-header")
    action = gr.Code(label="Action", interactive=False, elem_id="an-action")
    with gr.Accordion("State before the action", open=False):
        before = gr.HTML(label="Before")
    with gr.Row(equal_height=False):
        with gr.Column(min_width=320):
            gr.Markdown("#### Model prediction")
            predicted = gr.HTML(label="Predicted", elem_id="an-predicted")
        with gr.Column(min_width=320):
            gr.Markdown("#### Real state")
            real = gr.HTML(label="Real", elem_id="an-real")
    with gr.Row(equal_height=False):
        with gr.Column(min_width=320):
            editor = gr.Code(label="Corrected observation (edit the prediction into the truth)",
                             lines=14, interactive=True, elem_id="an-editor")  # fmt: skip
        with gr.Column(min_width=320):
            with gr.Tab("Diff"):
                diff = gr.HTML(label="Diff", elem_id="an-diff")
            with gr.Tab("Preview"):
                preview = gr.HTML(label="Preview", elem_id="an-preview")
    with gr.Row():
        ratings = {name: gr.Radio(["1", "2", "3", "4", "5"], label=name.capitalize(),
                                  elem_id=f"an-rate-{name}", elem_classes="an-rating")
                   for name in RATING_NAMES}  # fmt: skip
    with gr.Row():
        verdict = gr.Radio(["accept", "reject"], label="Verdict", elem_id="an-verdict", scale=1)
        tags = gr.Dropdown(list(ERROR_TAGS), multiselect=True, allow_custom_value=True,
                           label="Error tags", scale=2, elem_id="an-tags")  # fmt: skip
    notes = gr.Textbox(label="Notes", lines=2, elem_id="an-notes")
    with gr.Row():
        submit = gr.Button("Submit & next", variant="primary", elem_id="an-submit", scale=3)
        skip = gr.Button("Skip", elem_id="an-skip", scale=1)
    gr.Markdown(HELP)
    message = gr.Markdown(label="Result", elem_id="an-message")
    with gr.Accordion("Progress", open=False):
        progress = gr.Dataframe(headers=list(annotate_view.PROGRESS_HEADERS), interactive=False,
                                label="Progress", elem_id="an-progress")  # fmt: skip
    return AnnotatePage(gr.State(None), domain, next_btn, prediction_id, open_btn, header,
                        action, before, predicted, real, editor, preview, diff, ratings, verdict,
                        tags, notes, submit, skip, message, progress)  # fmt: skip


def wire(page: AnnotatePage, services: Services) -> None:
    """Bind the page's events to the annotation service."""
    annotator = Annotator(services)

    def show(draft: Draft | None, user: gr.Request, message: str = "") -> list[Any]:
        who = services.identify(user)
        return annotate_view.show(draft, message, annotate_view.progress_rows(services, who))

    def next_item(domain: str, request: gr.Request) -> list[Any]:
        return show(annotator.next(services.identify(request).name, domain), request)

    def open_item(prediction_id: float | None, request: gr.Request) -> list[Any]:
        pid = int(prediction_id or 0)
        return show(annotator.open(services.identify(request).name, pid), request)

    def skip(draft: Draft | None, domain: str, request: gr.Request) -> list[Any]:
        return show(annotator.skip(services.identify(request).name, draft, domain), request)

    def submit(draft: Draft | None, domain: str, request: gr.Request, **fields: Any) -> list[Any]:
        user = services.identify(request).name
        ratings = {name: fields.pop(name) for name in RATING_NAMES}
        version = annotator.submit(user, draft, fields["corrected"], ratings, fields["verdict"],
                                   fields["tags"], fields["notes"])  # fmt: skip
        saved = draft.item.prediction_id  # type: ignore[union-attr]
        note = f"Saved version {version} of your annotation of prediction #{saved}."
        return show(annotator.next(user, domain), request, note)

    cheap: dict[str, Any] = {"concurrency_limit": None, "outputs": page.shown}
    page.next.click(guarded(next_item), [page.domain], api_name="annotate_next", **cheap)
    page.open.click(guarded(open_item), [page.prediction_id], api_name="annotate_open", **cheap)
    page.skip.click(guarded(skip), [page.state, page.domain], api_name="annotate_skip", **cheap)
    fields: dict[str, Any] = {"corrected": page.editor, **page.ratings, "verdict": page.verdict,
              "tags": page.tags, "notes": page.notes}  # fmt: skip
    page.submit.click(guarded(submit), [page.state, page.domain], inputs_kwargs=fields,
                      api_name="annotate_submit", **cheap)  # fmt: skip
    page.editor.change(guarded(annotate_view.correction_views), [page.state, page.editor],
                       [page.preview, page.diff], api_name="annotate_preview",
                       trigger_mode="always_last", show_progress="hidden",
                       concurrency_limit=None)  # fmt: skip
