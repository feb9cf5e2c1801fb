"""Playground page: pick a domain and a start, type actions, watch predictions against reality."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.domains.base import all_domains, get_domain
from backend.engines.base import reference_answerers
from ui.errors import guarded
from ui.pages import (
    engine_panel,
    futures,
    job_panel,
    judge_button,
    playground_start,
    playground_step,
    playground_view,
    playground_world,
)
from ui.pages.engine_panel import EnginePanel
from ui.pages.job_panel import JobPanel
from ui.pages.playground_start import StartControls
from ui.play import Playground
from ui.provenance import correction_ids
from ui.queueing import admitted
from ui.services import Services
from ui.session import PlaySession

ORACLE_LIVE = (
    "⚠️ The oracle only repeats a recording's next state, and a live run's next state does not "
    "exist until the action runs: pick a model engine (the live result is shown as the real one)."
)
ORACLE_OFF_RECORDING = (
    "⚠️ The oracle baseline answers with the recording's next observation, and this action is "
    "not the recording's next one, so the step would fail. Type the recorded action or pick "
    "another engine."
)


@dataclass(frozen=True)
class PlaygroundPage:
    """The page's components."""

    state: gr.State
    domain: gr.Dropdown
    starts: StartControls
    engine: EnginePanel
    help: gr.Markdown
    action: gr.Textbox
    check: gr.Markdown
    step: gr.Button
    job: JobPanel
    view: playground_view.StepView
    position: gr.Number
    rewind: gr.Button
    branch: gr.Button
    judge: judge_button.JudgeButton
    futures: futures.FuturesSection
    world: playground_world.WorldControls


def render(services: Services) -> PlaygroundPage:
    """Build the page (inside the caller's Tab)."""
    first = all_domains()[0]
    choices = playground_view.trajectory_choices(services.trajectories, first.name)
    opening = choices[0][1] if choices else None
    session = Playground(services).start(first.name, opening, 0)
    state = gr.State(session)
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=300, elem_classes="awp-side"):
            domain = gr.Dropdown(
                [(d.title, d.name) for d in all_domains()],
                value=first.name,
                label="Domain",
                elem_id="pg-domain",
            )
            starts = playground_start.render(services, first.name, choices)
            engine = engine_panel.render(services.engines, services.defaults, "pg")
            world = playground_world.render()
        with gr.Column(scale=3):
            help_md = gr.Markdown(
                playground_view.action_help(first.name), label="Action help", elem_id="pg-help"
            )
            action = gr.Textbox(
                playground_view.next_action(session),
                label="Action",
                lines=3,
                max_lines=12,
                placeholder=first.example_action,
                elem_id="pg-action",
            )
            check = gr.Markdown("", label="Validation", elem_id="pg-check")
            step = gr.Button("Step ▶", variant="primary", elem_id="pg-step")
            # The step's job: its place in the queue, tokens, elapsed, what is left; Cancel.
            job = job_panel.render("pg", playground_step.KIND, "playground")
            view = playground_view.render("pg", playground_view.present(session))
            with gr.Row():
                position = gr.Number(
                    len(session.steps), label="Keep steps up to #", precision=0, minimum=0
                )
                rewind = gr.Button("Rewind", elem_id="pg-rewind")
                branch = gr.Button("Branch a new session here", elem_id="pg-branch")
            judge = judge_button.render("pg", services, "playground")
            many = futures.render()
    return PlaygroundPage(
        state,
        domain,
        starts,
        engine,
        help_md,
        action,
        check,
        step,
        job,
        view,
        position,
        rewind,
        branch,
        judge,
        many,
        world,
    )


Present = Callable[[PlaySession], dict[gr.components.Component, Any]]
"""A session as the values of the page's components that show it."""
CHEAP: dict[str, Any] = {"concurrency_limit": None}
"""Event options of a callback that does no model work: no Gradio concurrency limit."""


def wire(page: PlaygroundPage, services: Services) -> None:
    """Bind the page's events to the playground service."""
    playground = Playground(services)
    present = presenter(page, services)
    # The job line is last, where a step's place in the queue used to be shown; a load or
    # a rewind leaves it as it was (the last step's outcome).
    shown = [page.state, page.action, page.position, *page.view.outputs, page.job.line]
    wiring = Wiring(page, services, playground, present, shown)
    for part in (_wire_world, _wire_domain, _wire_starts, _wire_step, _wire_history):
        part(wiring)
    judge_button.wire(page.judge, page.state, last_prediction, services, "judge_step")
    futures.wire(page.futures, page.state, page.action, page.engine, services)


@dataclass(frozen=True)
class Wiring:
    """What each part of the page's wiring binds: the page, the services, how a session shows.

    Attributes:
        shown: the components every session-changing event updates (`present`'s, the job line).
    """

    page: PlaygroundPage
    services: Services
    playground: Playground
    present: Present
    shown: list[gr.components.Component]


def presenter(page: PlaygroundPage, services: Services) -> Present:
    """How the page shows a session: its state, next action, position and views."""

    def present(session: PlaySession) -> dict[gr.components.Component, Any]:
        last = session.steps[-1].prediction if session.steps else None
        places = services.annotations.places(correction_ids(last.grounded_by if last else []))
        return {
            page.state: session,
            page.action: playground_view.next_action(session),
            page.position: len(session.steps),
            **dict(zip(page.view.outputs, playground_view.present(session, places), strict=True)),
        }

    return present


def _wire_world(w: Wiring) -> None:
    """Save the session's world as a file, or load one (which starts a session in it)."""
    page, services, present, shown = w.page, w.services, w.present, w.shown

    def save_world(session: PlaySession, name: str, temperature: float, seed: float | None):
        return playground_world.save(services, session, name, temperature, seed)

    def load_world(text: str, upload: str | None) -> dict:
        session, temperature, seed = playground_world.load(services, text, upload)
        return {
            **present(session),
            page.domain: session.domain,
            page.help: playground_view.action_help(session.domain),
            page.engine.temperature: temperature,
            page.engine.seed: seed,
        }

    world = page.world
    world.save.click(
        guarded(save_world),
        [page.state, world.name, page.engine.temperature, page.engine.seed],
        [world.text, world.file],
        api_name="save_world",
        **CHEAP,
    )
    world.load.click(
        guarded(load_world),
        [world.text, world.file],
        [page.domain, page.help, page.engine.temperature, page.engine.seed, *shown],
        api_name="load_world",
        **CHEAP,
    )


def _wire_domain(w: Wiring) -> None:
    """A domain picked: its recordings, its live tasks, and a session on its first recording."""
    page, services, playground = w.page, w.services, w.playground
    present, shown = w.present, w.shown
    starts = page.starts

    def select_domain(domain: str) -> dict:
        choices = playground_view.trajectory_choices(services.trajectories, domain)
        first = choices[0][1] if choices else None
        session = playground.start(domain, first, 0)
        live_task, live_note = playground_start.for_domain(services, domain)
        return {
            **present(session),
            page.action: gr.Textbox(
                value=playground_view.next_action(session),
                placeholder=get_domain(domain).example_action,
            ),
            starts.trajectory: gr.Dropdown(choices=choices, value=first),
            page.help: playground_view.action_help(domain),
            starts.live_task: live_task,
            starts.live_note: live_note,
        }

    # `input`, not `change`: loading a world sets the menu itself, and must keep its session.
    page.domain.input(
        guarded(select_domain),
        [page.domain],
        [starts.trajectory, page.help, starts.live_task, starts.live_note, *shown],
        api_name="select_domain",
        **CHEAP,
    )


def _wire_starts(w: Wiring) -> None:
    """The starts: a recording's turn, a live task, a blank start, and the switch between them."""
    page, playground, present, shown = w.page, w.playground, w.present, w.shown
    starts = page.starts

    def select_source(domain: str, source: str) -> dict:
        # What the page shows is what Step uses: the old start's session goes with its mode.
        shown_groups = dict(zip(starts.groups, playground_start.show_source(source), strict=True))
        notice = playground_start.SWITCHED[source]
        return {**shown_groups, **present(PlaySession(domain, notice=notice))}

    def load(domain: str, trajectory_id: str | None, start: float | None) -> dict:
        return present(playground.start(domain, trajectory_id, int(start or 0)))

    def start_live(domain: str, task: str | None, hybrid: bool, request: gr.Request) -> dict:
        owner = request.session_hash or "anonymous"
        return present(playground.start_live(domain, task, owner, bool(hybrid)))

    def start_blank(domain: str, initial: str) -> dict:
        blank = PlaySession(domain, initial_state=initial or None, notice="Blank start.")
        return {starts.trajectory: gr.Dropdown(value=None), **present(blank)}

    starts.source.input(
        guarded(select_source),
        [page.domain, starts.source],
        [*starts.groups, *shown],
        api_name="select_source",
        **CHEAP,
    )
    start_inputs = [page.domain, starts.trajectory, starts.start]
    # `input`, not `change`: a start that sets the menu itself (a domain, a blank start) must not
    # load a recording behind the person's back.
    starts.trajectory.input(guarded(load), start_inputs, shown, api_name="load_trajectory", **CHEAP)
    starts.load.click(guarded(load), start_inputs, shown, api_name="load_turn", **CHEAP)
    # Starting a sandbox takes seconds (a browser: several), and there are only so many of them.
    starts.live_start.click(
        guarded(start_live),
        [page.domain, starts.live_task, starts.live_hybrid],
        shown,
        api_name="start_live",
        concurrency_limit=2,
        concurrency_id="live",
    )
    starts.blank.click(
        guarded(start_blank),
        [page.domain, starts.initial],
        [starts.trajectory, *shown],
        api_name="start_blank",
        **CHEAP,
    )


def _wire_step(w: Wiring) -> None:
    """The action's check as it is typed, and Step: a job the page follows, with its Cancel."""
    page, services, playground = w.page, w.services, w.playground
    present, shown = w.present, w.shown
    panel = page.job

    def validate(session: PlaySession, action: str, engine: str) -> tuple:
        if not action.strip():
            return "", gr.Button(interactive=True)
        problem = session.problem(action)
        if problem:
            return f"⚠️ {problem}", gr.Button(interactive=False)
        answers_with_truth = engine in reference_answerers()
        if answers_with_truth and session.live is not None:
            return ORACLE_LIVE, gr.Button(interactive=False)
        if answers_with_truth and session.real_for(action) is None:
            return ORACLE_OFF_RECORDING, gr.Button(interactive=False)
        return "✓ valid action", gr.Button(interactive=True)

    def check_step(session: PlaySession, action: str, **controls: Any) -> list[dict]:
        problem = session.problem(action)
        valid = [gr.validate(True, "")] * len(controls)
        return [gr.validate(True, ""), gr.validate(not problem, problem), *valid]

    def step(session: PlaySession, action: str, request: gr.Request, **controls: Any):
        # The step is a job; this callback follows it, streaming its text (see
        # `playground_step`). Admission is here, so a person over their share is told at once.
        user = services.identify(request)
        owner = services.identify(request, individual=True).name
        choice = services.choose_engine(user, **controls)
        ticket = admitted(services, request, choice.engine)
        job = playground_step.submit(
            services, playground, session, action, choice, user.name, owner, ticket
        )
        yield from playground_step.follow(panel, page.view, job, ticket, session, action, present)

    gr.on(
        [page.action.change, page.engine.engine.change],
        guarded(validate),
        [page.state, page.action, page.engine.engine],
        [page.check, page.step],
        api_name="validate_action",
        trigger_mode="always_last",
        show_progress="hidden",
        **CHEAP,
    )
    # No Gradio concurrency limit: `services.fair` queues model steps fairly (showing each
    # person their place) and lets baseline steps through at once.
    page.step.click(
        guarded(step),
        [page.state, page.action],
        [*shown, panel.job, panel.cancel],  # not the timer: this callback follows the job itself
        inputs_kwargs=page.engine.kwargs,
        api_name="step",
        concurrency_limit=None,
        validator=check_step,
        show_progress="hidden",  # the job line shows the progress, and Cancel stays usable
    )
    # The panel's Cancel stops the step (the engine lets go within a token), and its poll
    # follows a step a reloaded page reopened (`?job=`): its text so far, then the stored step.
    job_panel.follow(
        panel,
        services,
        present,
        shown[:-1],
        "step",
        unfinished=lambda job: playground_step.reopened(panel, page.view, job),
    )


def _wire_history(w: Wiring) -> None:
    """Rewind to an earlier step, or branch a new session there."""
    page, playground, present, shown = w.page, w.playground, w.present, w.shown

    def rewind(session: PlaySession, keep: float | None) -> dict:
        return present(playground.rewind(session, int(keep or 0)))

    def branch(session: PlaySession, keep: float | None) -> dict:
        return present(playground.branch(session, int(keep or 0)))

    page.rewind.click(
        guarded(rewind), [page.state, page.position], shown, api_name="rewind", **CHEAP
    )
    page.branch.click(
        guarded(branch), [page.state, page.position], shown, api_name="branch", **CHEAP
    )


def last_prediction(session: PlaySession) -> int | None:
    """The prediction of the session's last step (what "Judge this" grades)."""
    return session.steps[-1].prediction_id if session.steps else None
