"""The Gradio Blocks app: a header, then a Start page and four workspaces of nested tabs.

Every page is rendered and then wired; the page load picks the tab a link names
(`?workspace=`, `?tab=`, `?session=`, `?run=`, `?item=`, `?prediction=`, `?recording=` with
`&turn=`, `?annotation=`), shows admins their pages, and fills the pages that read the database
on open (Start, Sessions, Runs, a linked recording on Replay); a `?job=`
link reopens a running job (a step, futures, a verdict, a battle, a run) on the page that started
it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from ui.errors import guarded
from ui.pages import job_panel, replay, runs, sessions, start
from ui.services import Services
from ui.users import User
from ui.workspaces import WORKSPACES, Workspace, locate, page_id

TITLE = "AgentWorld Playground"
INTRO = "Language world models predict an agent environment's next observation."

LINKED_PAGE = {
    "session": "sessions",
    "annotation": "sessions",
    "run": "runs",
    "prediction": "annotate",
    "recording": "replay",
}
"""A link with this query parameter and no `tab` opens that page."""


def whoami_line(user: User) -> str:
    """Who is signed in and with which role, with a way out for password logins."""
    if not user.logged_in:
        return f"Not signed in · role: {user.role}"
    return f"Signed in as **{user.name}** · role: {user.role} · [Log out](/logout)"


def linked_tabs(query: dict[str, str]) -> tuple[Workspace | None, str | None]:
    """The workspace and page a link opens (None: leave the tab as it is)."""
    page = query.get("tab") or next((p for k, p in LINKED_PAGE.items() if k in query), None)
    if page is not None:
        return locate(page), page
    wanted = query.get("workspace")
    return next((w for w in WORKSPACES if w.id == wanted), None), None


@dataclass(frozen=True)
class Layout:
    """The workspaces' tabs as built.

    Attributes:
        outer: the workspaces' tabs.
        rendered: each page's module and its components, by page id.
        admin_tabs: the tabs only an admin sees (shown when an admin loads the page).
        inner_tabs: each workspace's pages' tabs, for one with more than one page.
    """

    outer: gr.Tabs
    rendered: dict[str, tuple[Any, Any]]
    admin_tabs: list[gr.Tab]
    inner_tabs: dict[str, gr.Tabs]


def build_blocks(services: Services) -> gr.Blocks:
    """Build the whole UI over `services`; launching (theme, CSS, auth) is the caller's job."""
    with gr.Blocks(title=TITLE, fill_width=True) as blocks:
        with gr.Row(elem_classes="awp-header"):
            gr.Markdown(f"# {TITLE}\n{INTRO}")
            with gr.Column(scale=0, min_width=260):
                who = gr.Markdown(label="User", elem_id="awp-user")
                if services.hf_login:
                    gr.LoginButton()
        layout = _render_workspaces(services)
        for module, page in layout.rendered.values():
            module.wire(page, services)
        _wire_load(blocks, services, who, layout)
        _wire_reopen(blocks, services, layout)
        if services.live is not None:
            pool = services.live

            def close_live(request: gr.Request) -> None:
                # The tab is gone: its live environment (a sandbox, maybe a browser) goes too.
                pool.close_owner(request.session_hash or "")

            blocks.unload(close_live)
    return blocks


def _render_workspaces(services: Services) -> Layout:
    """Render every workspace's tab and, in it, its pages (a tab each where there are several)."""
    rendered: dict[str, tuple[Any, Any]] = {}
    admin_tabs: list[gr.Tab] = []
    inner_tabs: dict[str, gr.Tabs] = {}
    with gr.Tabs(elem_id="awp-workspaces") as outer:
        for space in WORKSPACES:
            # Admin pages start hidden and are shown when an admin loads the page: hidden by
            # default, nobody else ever sees them (not even while the page loads).
            with gr.Tab(
                space.title, id=space.id, visible=not space.admin_only, elem_id=f"ws-{space.id}"
            ) as space_tab:
                if space.admin_only:
                    admin_tabs.append(space_tab)
                if space.blurb:
                    gr.Markdown(space.blurb, elem_classes="awp-blurb")
                if len(space.pages) == 1:
                    _, module = space.pages[0]
                    rendered[page_id(module)] = (module, module.render(services))
                    continue
                with gr.Tabs(elem_id=f"ws-{space.id}-pages") as inner:
                    inner_tabs[space.id] = inner
                    for title, module in space.pages:
                        # In an admin workspace the workspace's tab does the hiding.
                        hidden = getattr(module, "ADMIN_ONLY", False) and not space.admin_only
                        with gr.Tab(title, id=page_id(module), visible=not hidden) as tab:
                            rendered[page_id(module)] = (module, module.render(services))
                        if hidden:
                            admin_tabs.append(tab)
    return Layout(outer, rendered, admin_tabs, inner_tabs)


def _wire_load(blocks: gr.Blocks, services: Services, who: gr.Markdown, layout: Layout) -> None:
    """On page load: who is there, an admin's tabs, the tab a link names, the pages it opens.

    The pages that read the link are sessions, runs and replay.
    """
    outer, inner_tabs, admin_tabs = layout.outer, layout.inner_tabs, layout.admin_tabs
    start_page = layout.rendered["start"][1]
    sessions_page = layout.rendered["sessions"][1]
    runs_page = layout.rendered["runs"][1]
    replay_page = layout.rendered["replay"][1]
    loaded = [
        start_page.next_step,
        sessions_page.table,
        sessions_page.view,
        sessions_page.session_id,
        sessions_page.message,
        *runs.load_outputs(runs_page),
        *replay.load_outputs(replay_page),
    ]

    def whoami(request: gr.Request) -> dict[Any, Any]:
        user = services.identify(request)
        start.warm(services)  # the Start page's model loads while the visitor reads
        query = dict(getattr(request, "query_params", {}) or {})
        space, page = linked_tabs(query)
        updates: dict[Any, Any] = {
            who: whoami_line(user),
            start_page.next_step: start.next_step_text(services, user),
            **sessions.on_load(sessions_page, services, query),
            **runs.on_load(runs_page, services, query),
            **replay.on_load(replay_page, services, query),
        }
        for tab in admin_tabs:
            updates[tab] = gr.Tab(visible=user.is_admin)
        if space is not None and (user.is_admin or not space.admin_only):
            updates[outer] = gr.Tabs(selected=space.id)
            if page is not None and space.id in inner_tabs:
                updates[inner_tabs[space.id]] = gr.Tabs(selected=page)
        return updates

    blocks.load(
        guarded(whoami),
        None,
        [who, outer, *inner_tabs.values(), *admin_tabs, *loaded],
        api_name="whoami",
        concurrency_limit=None,
    )


def _wire_reopen(blocks: gr.Blocks, services: Services, layout: Layout) -> None:
    """On page load with `?job=`: the job's page opened and its panel following the job."""
    outer, inner_tabs = layout.outer, layout.inner_tabs
    panels = job_panel.panels_in([page for _, page in layout.rendered.values()])

    def reopen_job(request: gr.Request) -> dict[Any, Any]:
        query = dict(getattr(request, "query_params", {}) or {})
        user = services.identify(request, individual=True)
        page, updates = job_panel.reopen(panels, services, query, user)
        if not updates:  # no `?job=`: Gradio reads an empty dict as one value, not none
            return {outer: gr.update()}
        space = locate(page) if page else None
        if space is not None:
            updates[outer] = gr.Tabs(selected=space.id)
            if space.id in inner_tabs:
                updates[inner_tabs[space.id]] = gr.Tabs(selected=page)
        return updates

    blocks.load(
        guarded(reopen_job),
        None,
        [outer, *inner_tabs.values(), *(c for panel in panels for c in panel.reopened)],
        api_name="reopen_job",
        concurrency_limit=None,
    )
