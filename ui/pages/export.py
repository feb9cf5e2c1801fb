"""Export page: format and filters, a preview of rows with the count, download, Hub push."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.domains.base import all_domains
from backend.export.builders import FORMATS
from ui.errors import inline
from ui.exporting import FILE_KINDS, Exporter, ExportRequest
from ui.services import Services

ADMIN_ONLY = True
"""Exports hand out everyone's data: the tab is hidden from non-admins."""


@dataclass(frozen=True)
class ExportPage:
    """The page's components."""

    format: gr.Dropdown
    domain: gr.Dropdown
    since: gr.Textbox
    min_rating: gr.Slider
    kind: gr.Radio
    preview: gr.Button
    count: gr.Markdown
    rows: gr.Code
    write: gr.Button
    file: gr.File
    repo: gr.Textbox
    push: gr.Button
    message: gr.HTML

    @property
    def filters(self) -> dict[str, Any]:
        """The format and filter widgets, named like `ExportRequest` fields."""
        return {
            "format": self.format,
            "domain": self.domain,
            "since": self.since,
            "min_rating": self.min_rating,
        }


def render(services: Services) -> ExportPage:
    """Build the page (inside the caller's Tab)."""
    formats = [(f"{name}: {FORMATS.get(name).description}", name) for name in FORMATS.names()]
    gr.Markdown("Exports turn annotated predictions into training data. **Admins only.**")
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=300):
            fmt = gr.Dropdown(
                formats, value=FORMATS.names()[0], label="Format", elem_id="ex-format"
            )
            domain = gr.Dropdown(
                [("All domains", "")] + [(d.title, d.name) for d in all_domains()],
                value="",
                label="Domain",
                elem_id="ex-domain",
            )
            since = gr.Textbox(label="Since (ISO date, optional)", placeholder="2026-01-31")
            min_rating = gr.Slider(0, 5, value=0, step=0.5, label="Minimum mean rating (0: any)")
            kind = gr.Radio(list(FILE_KINDS), value="jsonl", label="File type")
            with gr.Row():
                preview = gr.Button("Preview", elem_id="ex-preview")
                write = gr.Button("Export file", variant="primary", elem_id="ex-write")
            message = gr.HTML(elem_id="ex-message")
            file = gr.File(label="Download", interactive=False, elem_id="ex-file")
            with gr.Group(visible=services.can_push):
                repo = gr.Textbox(label="Hub dataset repo", placeholder="user/my-world-model-data")
                push = gr.Button("Export and push to the Hub", elem_id="ex-push")
        with gr.Column(scale=2):
            count = gr.Markdown(
                "Press Preview to count the rows.", label="Count", elem_id="ex-count"
            )
            rows = gr.Code(
                label="First rows", language="json", interactive=False, elem_id="ex-rows"
            )
    return ExportPage(
        fmt, domain, since, min_rating, kind, preview, count, rows, write, file, repo, push, message
    )


def wire(page: ExportPage, services: Services) -> None:
    """Bind the page's events to the export service."""
    exporter = Exporter(services)

    def request_of(fields: dict[str, Any]) -> ExportRequest:
        rating = fields.pop("min_rating") or None
        return ExportRequest(min_rating=rating, **fields)

    def preview(request: gr.Request, **fields: Any) -> dict[Any, str]:
        count, rows = exporter.preview(services.identify(request), request_of(fields))
        return {page.count: f"**{count}** rows match.", page.rows: rows}

    def write(kind: str, request: gr.Request, **fields: Any) -> dict[Any, str]:
        summary = exporter.write(services.identify(request), request_of(fields), kind)
        return {
            page.file: str(summary.path),
            page.count: f"Wrote **{summary.rows}** {summary.format} rows. "
            + summary.unparsed.says(),
        }

    def push(kind: str, repo: str, request: gr.Request, **fields: Any) -> dict[Any, str]:
        summary = exporter.write(services.identify(request), request_of(fields), kind, repo)
        return {
            page.file: str(summary.path),
            page.count: f"Wrote **{summary.rows}** rows; pushed to {summary.pushed_to}. "
            + summary.unparsed.says(),
        }

    cheap: dict[str, Any] = {"inputs_kwargs": page.filters, "concurrency_limit": 2}
    page.preview.click(
        inline(preview, page.message),
        None,
        [page.count, page.rows, page.message],
        api_name="export_preview",
        **cheap,
    )
    page.write.click(
        inline(write, page.message),
        [page.kind],
        [page.file, page.count, page.message],
        api_name="export_file",
        **cheap,
    )
    page.push.click(
        inline(push, page.message),
        [page.kind, page.repo],
        [page.file, page.count, page.message],
        api_name="export_push",
        **cheap,
    )
