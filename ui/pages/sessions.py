"""Sessions browser: every stored session, searched and filtered, each opened step by step.

Playground, Replay, benchmark, arena, rollout and live sessions all land in one store; this is
where a person finds one again (by domain, kind, engine or a word of its owner, model or id) and
reads it. `?session=<id>` opens one directly; `?annotation=<id>` opens the session an annotator
corrected, that correction first (grounding links its corrections so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.domains.base import all_domains, get_domain
from backend.errors import BadInputError, NotFoundError
from storage.models import SessionKind
from storage.records import SessionSummary, StoredSession
from ui.errors import inline, inline_error
from ui.provenance import correction_ids
from ui.renderers import render as render_observation
from ui.renderers.base import esc
from ui.services import Services
from ui.session_view import grounding_refs, session_html, shown_steps
from ui.views import empty, short

ANY = ""
HEADERS = ["id", "domain", "kind", "engine", "model", "steps", "owner", "updated"]
SCAN = 1_000
"""Sessions read per search (the newest); filters narrow them."""


@dataclass(frozen=True)
class SessionsPage:
    """The page's components."""

    search: gr.Textbox
    domain: gr.Dropdown
    kind: gr.Dropdown
    engine: gr.Dropdown
    find: gr.Button
    table: gr.Dataframe
    session_id: gr.Number
    open: gr.Button
    message: gr.HTML
    view: gr.HTML


def render(services: Services) -> SessionsPage:
    """Build the page (inside the caller's Tab)."""
    with gr.Row(equal_height=True):
        search = gr.Textbox(label="Search (id, owner, engine, model)", scale=3, elem_id="ss-search")
        domain = gr.Dropdown(
            [("Any domain", ANY)] + [(d.title, d.name) for d in all_domains()],
            value=ANY,
            label="Domain",
            elem_id="ss-domain",
        )
        kind = gr.Dropdown(
            [("Any kind", ANY)] + [(k.value, k.value) for k in SessionKind],
            value=ANY,
            label="Kind",
            elem_id="ss-kind",
        )
        engine = gr.Dropdown(
            [("Any engine", ANY)] + [(e, e) for e in services.engines],
            value=ANY,
            label="Engine",
            elem_id="ss-engine",
        )
        find = gr.Button("Search", variant="primary", scale=1, elem_id="ss-find")
    table = gr.Dataframe(
        headers=HEADERS, interactive=False, label="Sessions, newest first", elem_id="ss-table"
    )
    with gr.Row(equal_height=True):
        session_id = gr.Number(
            label="Session id (or click a row)", precision=0, minimum=1, elem_id="ss-id"
        )
        open_ = gr.Button("Open", scale=0, elem_id="ss-open")
    message = gr.HTML(elem_id="ss-message")
    view = gr.HTML(empty("Open a session to read it."), elem_id="ss-view")
    return SessionsPage(search, domain, kind, engine, find, table, session_id, open_, message, view)


def matches(summary: SessionSummary, words: str, kind: str, engine: str) -> bool:
    """Whether a session passes the filters (every word of `words` must appear somewhere)."""
    if kind and summary.kind != kind:
        return False
    if engine and summary.engine != engine:
        return False
    hay = f"#{summary.id} {summary.id} {summary.owner or ''} {summary.engine} {summary.model}"
    return all(word in hay.lower() for word in words.lower().split())


def rows(summaries: list[SessionSummary]) -> list[list[Any]]:
    """Table rows of the listed sessions."""
    return [
        [
            s.id,
            s.domain,
            s.kind if s.complete else f"{s.kind} (incomplete)",
            s.engine,
            s.model,
            s.steps,
            s.owner or "",
            s.updated_at.strftime("%Y-%m-%d %H:%M"),
        ]
        for s in summaries
    ]


def wire(page: SessionsPage, services: Services) -> None:
    """Bind the page's events; errors show in the page's one message line."""

    def find(words: str, domain: str, kind: str, engine: str) -> dict[Any, Any]:
        listed = services.sessions.list_sessions(domain or None, limit=SCAN)
        found = [s for s in listed if matches(s, words or "", kind, engine)]
        note = f"{len(found)} session{'s' if len(found) != 1 else ''} match."
        return {
            page.table: gr.Dataframe(rows(found[:200]) or None, headers=HEADERS),
            page.message: empty(note),
        }

    def open_session(session_id: float | None) -> dict[Any, Any]:
        if not session_id:
            raise BadInputError("Give a session id, or click a row of the table.")
        stored = services.sessions.load_session(int(session_id))
        return {page.view: stored_html(services, stored), page.session_id: stored.id}

    def picked(event: gr.SelectData) -> dict[Any, Any]:
        row = event.row_value if event.row_value else None
        if not row:
            return {}
        return open_session(float(row[0]))

    filters = [page.search, page.domain, page.kind, page.engine]
    outputs = [page.table, page.message]
    cheap: dict[str, Any] = {"concurrency_limit": None}
    page.find.click(inline(find, page.message), filters, outputs, api_name="sessions_find", **cheap)
    page.search.submit(inline(find, page.message), filters, outputs, **cheap)
    for control in (page.domain, page.kind, page.engine):
        control.change(inline(find, page.message), filters, outputs, **cheap)
    shown = [page.view, page.session_id, page.message]
    page.open.click(
        inline(open_session, page.message),
        [page.session_id],
        shown,
        api_name="sessions_open",
        **cheap,
    )
    page.table.select(inline(picked, page.message), None, shown, **cheap)


def stored_html(services: Services, stored: StoredSession) -> str:
    """The session's HTML, each correction that grounded a shown step named by its place.

    The corrections of every shown step are looked up in one query.
    """
    refs = grounding_refs(stored, shown_steps(stored))
    return session_html(stored, places=services.annotations.places(correction_ids(refs)))


def correction_view(services: Services, annotation_id: int) -> tuple[int, str]:
    """The session an annotation corrects and its HTML: the correction, then the session.

    Raises:
        NotFoundError: no such annotation (or its step is gone).
    """
    place = services.annotations.places([annotation_id]).get(annotation_id)
    if place is None:
        raise NotFoundError(f"Annotation {annotation_id} does not exist.")
    record = services.annotations.get(annotation_id)
    stored = services.sessions.load_session(place.session_id)
    step = stored.steps[place.step_index]
    index = place.step_index
    before = stored.steps[index - 1].real_observation if index else stored.initial_state
    renderer = get_domain(stored.domain).renderer
    head = (
        f'<div class="awp-item awp-correction" data-annotation="{annotation_id}"><h4>Correction '
        f"#{annotation_id} by {esc(record.annotator)} ({esc(record.verdict.value)}) of step "
        f"{place.step_index + 1}: <code>{esc(short(step.action, 160))}</code></h4>"
        f"{render_observation(renderer, record.corrected_observation, before)}</div>"
    )
    return stored.id, head + stored_html(services, stored)


def on_load(page: SessionsPage, services: Services, query: dict[str, str]) -> dict[Any, Any]:
    """The page's first contents: the newest sessions, and the `?session=` one opened.

    `?annotation=<id>` opens the session that annotation corrects, with the correction first.
    """
    listed = services.sessions.list_sessions(limit=200)
    updates: dict[Any, Any] = {page.table: gr.Dataframe(rows(listed) or None, headers=HEADERS)}
    wanted, annotation = query.get("session", ""), query.get("annotation", "")
    try:
        if annotation.isdigit():
            session_id, view = correction_view(services, int(annotation))
            updates |= {page.view: view, page.session_id: session_id}
        elif wanted.isdigit():
            stored = services.sessions.load_session(int(wanted))
            updates |= {page.view: stored_html(services, stored), page.session_id: stored.id}
    except Exception as exc:  # a stale link says so beside the control, nothing else
        updates[page.message] = inline_error(exc)
    return updates
