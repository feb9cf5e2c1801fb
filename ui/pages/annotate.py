"""Annotate page: the review queue, the context the model saw, an editor, verdict and ratings.

Every event answers with the page's values by component (`_updates`), so a refused Open or
Submit changes only the message next to the control that failed and keeps what the annotator
typed. Anonymous people annotate under the identity the server issued them (`app.identity`), so
two of them never share an item and nobody can annotate under a name of their choosing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr
from gradio.context import Context

from backend.errors import AWPError
from backend.observations import MalformedObservationError
from storage.annotations.types import QueueFilter
from ui.annotate import RATING_HELP, Annotator, Draft, starting_text
from ui.errors import guarded, inline
from ui.pages import annotate_filters, annotate_view, judge_button
from ui.pages.annotate_layout import BROWSER_KEY, BROWSER_SECRET, AnnotatePage, render
from ui.provenance import correction_ids
from ui.services import Services
from ui.structured import MalformedCorrectionError
from ui.users import User, browser_key

__all__ = ["BROWSER_KEY", "BROWSER_SECRET", "AnnotatePage", "render", "wire"]


Show = Callable[..., dict[Any, Any]]
"""The page showing an item (or none) to a person: `_shower`'s `show`."""


def wire(page: AnnotatePage, services: Services) -> None:
    """Bind the page's events to the annotation service."""
    annotator = Annotator(services)
    show = _shower(page, services, annotator)
    cheap: dict[str, Any] = {"concurrency_limit": None, "outputs": page.shown}
    who: dict[str, Any] = {"browser": page.browser, "queue": page.filters.state}
    _wire_filters(page, services, annotator, show)
    open_linked = _wire_queue(page, services, annotator, show, who, cheap)
    _wire_submit(page, services, annotator, show, who, cheap)
    _wire_editor(page)
    judge_button.wire(page.judge, page.state, judged_prediction, services, "judge_annotation")
    if Context.root_block is not None:
        Context.root_block.load(
            guarded(open_linked),
            [page.domain],
            inputs_kwargs=who,
            api_visibility="private",
            **cheap,
        )
    page.editor.change(
        guarded(annotate_view.correction_views),
        [page.state, page.editor],
        [page.preview, page.diff, page.editor_note],
        api_name="annotate_preview",
        trigger_mode="always_last",
        show_progress="hidden",
        concurrency_limit=None,
    )


def _person(services: Services, browser: str | None, request: gr.Request) -> tuple[User, str]:
    """Who annotates (the server's identity) and the browser's key (kept for the page only)."""
    key = browser_key(browser, request)
    return services.identify(request, individual=True), key


def _updates(page: AnnotatePage, values: dict[str, Any], key: str | None = None) -> dict[Any, Any]:
    """The page's values by component name as updates, with the browser's key when given."""
    out = {page.component(name): value for name, value in values.items()}
    if key is not None:
        out[page.browser] = key
    return out


def _shower(page: AnnotatePage, services: Services, annotator: Annotator) -> Show:
    """How the page shows an item to a person: the item, their queue and progress."""

    def show(
        draft: Draft | None,
        who: User,
        key: str,
        domain: str,
        message: str = "",
        queue: QueueFilter | None = None,
    ) -> dict:
        state = annotator.queue_state(who.name, domain, queue)
        rows = annotate_view.progress_rows(services, who)
        refs = draft.item.grounded_by if draft is not None else []
        places = services.annotations.places(correction_ids(refs))
        shown = _updates(page, annotate_view.show(draft, who, state, message, rows, places), key)
        return {**shown, page.judge.verdict: ""}

    return show


def _wire_queue(
    page: AnnotatePage,
    services: Services,
    annotator: Annotator,
    show: Show,
    who: dict[str, Any],
    cheap: dict[str, Any],
) -> Callable[..., dict[Any, Any]]:
    """Next, Open (by id) and Skip; returns the opener of the item a link names."""

    def next_item(
        domain: str,
        request: gr.Request,
        browser: str | None = None,
        queue: QueueFilter | None = None,
    ) -> dict:
        who, key = _person(services, browser, request)
        return show(annotator.next(who.name, domain, queue), who, key, domain, queue=queue)

    def open_item(
        prediction_id: float | None,
        domain: str,
        request: gr.Request,
        browser: str | None = None,
        queue: QueueFilter | None = None,
    ) -> dict:
        who, key = _person(services, browser, request)
        try:
            draft = annotator.open(who.name, prediction_id)
        except AWPError as exc:
            refused = f"Not opened: {exc}"
            return _updates(page, {"open_note": annotate_view.banner(refused, "refused")}, key)
        return show(draft, who, key, domain, queue=queue)

    def open_linked(
        domain: str,
        request: gr.Request,
        browser: str | None = None,
        queue: QueueFilter | None = None,
    ) -> dict:
        # The Agreement page links disagreements as `?prediction=<id>`: open that one.
        linked = str(request.query_params.get("prediction", "")) if request else ""
        if not linked.isdigit():
            return {page.open_note: gr.skip()}
        return open_item(float(linked), domain, request, browser, queue)

    def skip(
        draft: Draft | None,
        domain: str,
        request: gr.Request,
        browser: str | None = None,
        queue: QueueFilter | None = None,
    ) -> dict:
        who, key = _person(services, browser, request)
        return show(annotator.skip(who.name, draft, domain, queue), who, key, domain, queue=queue)

    page.next.click(
        guarded(next_item),
        [page.domain],
        inputs_kwargs=who,
        api_name="annotate_next",
        **cheap,
    )
    page.open.click(
        guarded(open_item),
        [page.prediction_id, page.domain],
        inputs_kwargs=who,
        api_name="annotate_open",
        **cheap,
    )
    page.skip.click(
        guarded(skip),
        [page.state, page.domain],
        inputs_kwargs=who,
        api_name="annotate_skip",
        **cheap,
    )
    return open_linked


def _wire_filters(page: AnnotatePage, services: Services, annotator: Annotator, show: Show) -> None:
    """A filter change: the open item given back, the next one under the new filter shown.

    A value the filter cannot use is refused beside the filters (`annotate_filters.build`);
    the open item and the filter in force stay as they were.
    """

    def refilter(
        draft: Draft | None,
        domain: str,
        engine: str | None,
        session: float | None,
        kind: str | None,
        show_trivial: bool,
        least: bool,
        request: gr.Request,
        browser: str | None = None,
    ) -> dict:
        queue = annotate_filters.build(engine, session, kind, show_trivial, least)
        who, key = _person(services, browser, request)
        served = annotator.refilter(who.name, draft, domain, queue)
        return {**show(served, who, key, domain, queue=queue), page.filters.state: queue}

    gr.on(
        page.filters.changes,
        inline(refilter, page.filters.note),
        [page.state, page.domain, *page.filters.inputs],
        [*page.shown, page.filters.state, page.filters.note],
        inputs_kwargs={"browser": page.browser},
        api_name="annotate_filter",
        concurrency_limit=None,
    )


def _wire_submit(
    page: AnnotatePage,
    services: Services,
    annotator: Annotator,
    show: Show,
    who: dict[str, Any],
    cheap: dict[str, Any],
) -> None:
    """Submit: the correction, verdict and ratings saved, then the next item."""

    def submit(
        draft: Draft | None,
        domain: str,
        request: gr.Request,
        browser: str | None = None,
        queue: QueueFilter | None = None,
        **fields: Any,
    ) -> dict:
        who, key = _person(services, browser, request)
        ratings = {name: fields.pop(name) for name in RATING_HELP}
        try:
            record = annotator.submit(who, draft, ratings=ratings, **fields)
        except AWPError as exc:
            refused = annotate_view.banner(f"Not saved: {exc}", "refused")
            malformed = isinstance(exc, MalformedCorrectionError | MalformedObservationError)
            beside = {"editor_note": refused} if malformed else {}
            return _updates(page, {"message": refused, **beside}, key)
        saved = annotate_view.saved_banner(record)
        return show(annotator.next(who.name, domain, queue), who, key, domain, saved, queue)

    fields: dict[str, Any] = {
        **who,
        "corrected": page.editor,
        **page.ratings,
        "verdict": page.verdict,
        "tags": page.tags,
        "notes": page.notes,
    }
    page.submit.click(
        guarded(submit),
        [page.state, page.domain],
        inputs_kwargs=fields,
        api_name="annotate_submit",
        **cheap,
    )


def _wire_editor(page: AnnotatePage) -> None:
    """The editor's Use real and Reset buttons."""
    page.use_real.click(
        guarded(use_real),
        [page.state],
        [page.state, page.editor],
        api_name="annotate_use_real",
        concurrency_limit=None,
    )
    page.reset.click(
        guarded(reset),
        [page.state],
        [page.state, page.editor],
        api_name="annotate_reset",
        concurrency_limit=None,
    )


def load(draft: Draft | None, text: str | None) -> tuple[Any, Any]:
    """The draft with `text` in its editor, and the editor showing it (nothing without either)."""
    if draft is None or text is None:
        return gr.skip(), gr.skip()
    loaded = draft.editing(text)
    return loaded, annotate_view.editor(text, loaded.form)


def use_real(draft: Draft | None) -> tuple[Any, Any]:
    """Use real: the real observation in the editor."""
    return load(draft, draft.item.real_observation if draft is not None else None)


def reset(draft: Draft | None) -> tuple[Any, Any]:
    """Reset: the editor back to the text it started from."""
    if draft is None:
        return gr.skip(), gr.skip()
    return load(draft, starting_text(draft.item, draft.item.predicted_observation))


def judged_prediction(draft: Draft | None) -> int | None:
    """The open item's prediction (what "Judge this" grades)."""
    return draft.item.prediction_id if draft is not None else None
