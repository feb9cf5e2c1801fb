"""The Playground's "Many futures" section: K samples of the typed action, or candidate actions.

Rendered inside the Playground page (its session state, action box and engine panel are the
inputs), so sampling futures never changes the session the page steps through.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.compare.futures import MAX_CANDIDATES
from backend.domains.base import get_domain
from backend.errors import BadActionError
from backend.jobs import Job
from backend.stepping import MAX_SAMPLES
from ui.futures import Futures, FuturesService
from ui.pages import job_panel
from ui.pages.engine_panel import EnginePanel
from ui.queueing import blocking_turn
from ui.renderers import render as render_observation
from ui.renderers.base import esc
from ui.services import Services
from ui.session import PlaySession
from ui.views import chip, empty, scores_html, short

SAMPLES = "Sample K futures of the action above"
CANDIDATES = "Compare candidate actions from this state"


@dataclass(frozen=True)
class FuturesSection:
    """The section's components."""

    mode: gr.Radio
    k: gr.Slider
    candidates: list[gr.Textbox]
    run: gr.Button
    job: job_panel.JobPanel
    summary: gr.HTML
    grid: gr.HTML


def render() -> FuturesSection:
    """Build the section (inside the Playground page's layout)."""
    with gr.Accordion("Many futures from this state", open=False, elem_id="fu-box"):
        mode = gr.Radio(
            [SAMPLES, CANDIDATES], value=SAMPLES, label="What to predict", elem_id="fu-mode"
        )
        k = gr.Slider(
            2, MAX_SAMPLES, value=4, step=1, label="K samples (one batched call)", elem_id="fu-k"
        )
        with gr.Row():
            candidates = [
                gr.Textbox(label=f"Candidate action {i + 1}", lines=2, elem_id=f"fu-action-{i}")
                for i in range(MAX_CANDIDATES)
            ]
        run = gr.Button("Predict futures", variant="primary", elem_id="fu-run")
        job = job_panel.render("fu", "futures", "playground")
        summary = gr.HTML(elem_id="fu-summary")
        grid = gr.HTML(elem_id="fu-grid")
    return FuturesSection(mode, k, candidates, run, job, summary, grid)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def summary_html(futures: Futures) -> str:
    """How the K samples spread (nothing for candidate actions)."""
    s = futures.spread
    if s is None:
        stored = ", ".join(f"#{f.session_id}" for f in futures.futures)
        return (
            f'<div class="awp-status">Each candidate is stored as its own branch: {stored}.</div>'
        )
    chips = [
        chip("distinct outcomes", f"{s.distinct} of {s.samples}"),
        chip("most common", f"{s.largest} of {s.samples}"),
        chip(f"agreement with each other ({s.metric})", _percent(s.mutual)),
        chip(f"agreement with the real state ({s.metric})", _percent(s.with_real)),
    ]
    where = futures.futures[0]
    note = f"Stored as {s.samples} predictions of one step in session #{where.session_id}."
    return f'<div class="awp-status">{"".join(chips)}<span class="awp-note">{note}</span></div>'


def grid_html(futures: Futures, domain: str) -> str:
    """Every future side by side, rendered natively, with its scores when the truth is known."""
    renderer = get_domain(domain).renderer
    cards = []
    for number, future in enumerate(futures.futures, start=1):
        action = esc(short(future.action))
        title = f"#{number}: <code>{action}</code> · prediction #{future.prediction_id}"
        body = render_observation(renderer, future.prediction.observation, futures.previous)
        scores = scores_html(future.scores, future.real is not None, domain)
        cards.append(
            f'<div class="awp-pane"><div class="awp-caption">{title}</div>{body}{scores}</div>'
        )
    return f'<div class="awp-futures">{"".join(cards)}</div>' if cards else empty("No futures.")


def wire(
    section: FuturesSection,
    state: gr.State,
    action: gr.Textbox,
    engine: EnginePanel,
    services: Services,
) -> None:
    """Bind the section to the Playground's session, action and engine panel.

    The futures are a job: the button returns at once, the job line shows the tokens decoded
    (K times the output budget at most) and Cancel frees the engine; the futures shown stay
    until new ones are done.
    """
    service = FuturesService(services)

    def start(
        session: PlaySession,
        typed: str,
        mode: str,
        k: float,
        first: str,
        second: str,
        third: str,
        fourth: str,
        request: gr.Request,
        **controls: Any,
    ) -> Job:
        user = services.identify(request)
        owner = services.identify(request, individual=True).name
        choice = services.choose_engine(user, **controls)
        budget = choice.params.max_new_tokens
        if mode == CANDIDATES:
            actions = service.typed_candidates(session, [first, second, third, fourth])

            def candidates(job: Job) -> tuple[Futures, str]:
                with blocking_turn(services, request, choice.engine):
                    futures = service.candidates(session, actions, choice, user.name)
                return futures, session.domain

            title = f"{len(actions)} candidate futures"
            return services.jobs.submit(
                "futures", owner, title, candidates, total=len(actions) * budget
            )
        problem = session.problem(typed)
        if problem:
            raise BadActionError(problem)
        count = int(k)

        def samples(job: Job) -> tuple[Futures, str]:
            with blocking_turn(services, request, choice.engine):
                futures = service.samples(session, typed, choice, count, user.name)
            return futures, session.domain

        title = f"{count} futures of one action"
        return services.jobs.submit("futures", owner, title, samples, total=count * budget)

    def show(result: tuple[Futures, str]) -> dict[Any, str]:
        futures, domain = result
        return {section.summary: summary_html(futures), section.grid: grid_html(futures, domain)}

    job_panel.wire(
        section.job,
        services,
        section.run,
        start,
        [state, action, section.mode, section.k, *section.candidates],
        show,
        [section.summary, section.grid],
        api_name="futures",
        inputs_kwargs=engine.kwargs,
    )
