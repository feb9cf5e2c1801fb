"""The Gradio Blocks app: a header, then one tab per page, each page rendered and then wired."""

from __future__ import annotations

import gradio as gr

from ui.errors import guarded
from ui.pages import (
    agreement,
    annotate,
    arena,
    benchmark,
    export,
    playground,
    real_or_not,
    replay,
    rollouts,
    train,
)
from ui.services import Services
from ui.users import User

TITLE = "AgentWorld Playground"
INTRO = (
    "Language world models predict an agent environment's next observation. Pick a domain, "
    "act, and compare the model's prediction with what really happened."
)
PAGES = (
    ("Playground", playground),
    ("Replay", replay),
    ("Annotate", annotate),
    ("Which one is real?", real_or_not),
    ("Arena", arena),
    ("Agreement", agreement),
    ("Benchmark", benchmark),
    ("Rollouts", rollouts),
    ("Export", export),
    ("Train", train),
)
"""Tab title and page module (with `render(services)` and `wire(page, services)`), in tab order.

A page module with `ADMIN_ONLY = True` is shown to admins only: its tab is hidden for everyone
else when the page loads (its events refuse non-admins too, whatever the browser sends)."""


def whoami_line(user: User) -> str:
    """Who is signed in and with which role, with a way out for password logins."""
    role = "admin" if user.is_admin else "annotator"
    if not user.logged_in:
        return f"Not signed in · role: {role}"
    return f"Signed in as **{user.name}** · role: {role} · [Log out](/logout)"


def build_blocks(services: Services) -> gr.Blocks:
    """Build the whole UI over `services`; launching (theme, CSS, auth) is the caller's job."""
    with gr.Blocks(title=TITLE, fill_width=True) as blocks:
        with gr.Row(elem_classes="awp-header"):
            gr.Markdown(f"# {TITLE}\n{INTRO}")
            with gr.Column(scale=0, min_width=260):
                who = gr.Markdown(label="User", elem_id="awp-user")
                if services.hf_login:
                    gr.LoginButton()
        rendered = []
        admin_tabs: list[gr.Tab] = []
        with gr.Tabs() as tabs:
            for title, module in PAGES:
                # Admin pages start hidden and are shown when an admin loads the page: hidden by
                # default, nobody else ever sees them (not even while the page loads).
                admin_only = getattr(module, "ADMIN_ONLY", False)
                name = module.__name__.rsplit(".", 1)[-1]
                with gr.Tab(title, id=name, visible=not admin_only) as tab:
                    rendered.append((module, module.render(services)))
                if admin_only:
                    admin_tabs.append(tab)
        for module, page in rendered:
            module.wire(page, services)

        def whoami(request: gr.Request) -> list:
            user = services.identify(request)
            # A `?prediction=<id>` link (the Agreement page's) opens on the Annotate tab.
            linked = "prediction" in getattr(request, "query_params", {})
            tab = gr.Tabs(selected="annotate") if linked else gr.skip()
            return [whoami_line(user), tab, *[gr.Tab(visible=user.is_admin) for _ in admin_tabs]]

        blocks.load(
            guarded(whoami),
            None,
            [who, tabs, *admin_tabs],
            api_name="whoami",
            concurrency_limit=None,
        )
        if services.live is not None:
            pool = services.live

            def close_live(request: gr.Request) -> None:
                # The tab is gone: its live environment (a sandbox, maybe a browser) goes too.
                pool.close_owner(request.session_hash or "")

            blocks.unload(close_live)
    return blocks
