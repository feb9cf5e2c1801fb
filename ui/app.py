"""The Gradio Blocks app: a header, then one tab per page, each page rendered and then wired."""

from __future__ import annotations

import gradio as gr

from ui.errors import guarded
from ui.pages import annotate, benchmark, export, playground, replay
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
    ("Benchmark", benchmark),
    ("Export", export),
)
"""Tab title and page module (with `render(services)` and `wire(page, services)`), in tab order."""


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
        with gr.Tabs():
            for title, module in PAGES:
                with gr.Tab(title, id=module.__name__.rsplit(".", 1)[-1]):
                    rendered.append((module, module.render(services)))
        for module, page in rendered:
            module.wire(page, services)

        def whoami(request: gr.Request) -> str:
            return whoami_line(services.identify(request))

        blocks.load(guarded(whoami), None, who, api_name="whoami", concurrency_limit=None)
    return blocks
