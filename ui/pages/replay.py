"""Replay page: step through a recording; run it teacher-forced or closed loop, see divergence.

`?recording=<id>&turn=<n>` opens a recording at a turn (grounding links its sources so). A run
of the whole recording is a job (`replay_job`): its line counts the turns, its Cancel stops it
and frees the engine, and `?job=<id>` reopens it here with the run so far.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.domains.base import all_domains, get_domain
from backend.errors import AWPError, BadInputError
from storage.annotations.types import CorrectionPlace
from storage.models import SessionKind
from ui.errors import inline, inline_error
from ui.pages import engine_panel, job_panel, playground_view, replay_job
from ui.pages.engine_panel import EnginePanel
from ui.pages.job_panel import JobPanel
from ui.play import Playground
from ui.provenance import correction_ids
from ui.queueing import admitted
from ui.renderers import render as render_observation
from ui.renderers import render_diff
from ui.renderers.base import esc
from ui.replay import ReplayState
from ui.services import Services
from ui.views import empty, metric_strip, scores_html, status_html


@dataclass(frozen=True)
class ReplayPage:
    """The page's components."""

    state: gr.State
    domain: gr.Dropdown
    trajectory: gr.Dropdown
    info: gr.Markdown
    turn: gr.Slider
    action: gr.Code
    before: gr.HTML
    real: gr.HTML
    predicted: gr.HTML
    diff: gr.HTML
    engine: EnginePanel
    run: gr.Button
    job: JobPanel
    message: gr.HTML
    strip: gr.HTML
    status: gr.HTML

    @property
    def turn_outputs(self) -> list[gr.components.Component]:
        """What `show_turn` fills."""
        return [self.action, self.before, self.real, self.predicted, self.diff, self.status]


def render(services: Services) -> ReplayPage:
    """Build the page (inside the caller's Tab)."""
    first = all_domains()[0].name
    choices = playground_view.trajectory_choices(services.trajectories, first)
    with gr.Row():
        domain = gr.Dropdown(
            [(d.title, d.name) for d in all_domains()],
            value=first,
            label="Domain",
            elem_id="rp-domain",
            scale=1,
        )
        trajectory = gr.Dropdown(
            choices,
            value=None,
            label="Recording",
            scale=3,
            allow_custom_value=True,
            elem_id="rp-trajectory",
        )
    # Until a recording is picked the panels below are empty; this line says why.
    info = gr.Markdown(
        "*Pick a recording: it shows below step by step, and **Run the whole recording** "
        "has the engine predict each step.*",
        label="Recording",
        elem_id="rp-info",
    )
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=280):
            engine = engine_panel.render(services.engines, services.defaults, "rp")
            run = gr.Button("Run the whole recording", variant="primary", elem_id="rp-run")
            job = job_panel.render("rp", replay_job.KIND, "replay")
            message = gr.HTML(elem_id="rp-message")
        with gr.Column(scale=3):
            strip = gr.HTML(label="Per-turn headline metric", elem_id="rp-strip")
            turn = gr.Slider(1, 2, value=1, step=1, label="Turn", elem_id="rp-turn")
            action = gr.Code(label="Action", language="json", interactive=False)
            status = gr.HTML(label="Status", elem_id="rp-status")
            with gr.Accordion("Observation before", open=False):
                before = gr.HTML(label="Before", elem_id="rp-before")
            with gr.Row(equal_height=False):
                with gr.Column(min_width=320):
                    gr.Markdown("#### Predicted")
                    predicted = gr.HTML(label="Predicted", elem_id="rp-predicted")
                with gr.Column(min_width=320):
                    gr.Markdown("#### Recorded (real)")
                    real = gr.HTML(label="Real", elem_id="rp-real")
            with gr.Accordion("Diff: predicted vs real", open=False):
                diff = gr.HTML(label="Diff")
    return ReplayPage(
        gr.State(ReplayState()),
        domain,
        trajectory,
        info,
        turn,
        action,
        before,
        real,
        predicted,
        diff,
        engine,
        run,
        job,
        message,
        strip,
        status,
    )


def _info(state: ReplayState) -> str:
    t = state.trajectory
    if t is None:
        return ""
    inferred = " Actions are **inferred**, not recorded." if t.action_inferred else ""
    return (
        f"**{esc(t.id)}** · {len(t.turns)} turns · source `{esc(t.source)}` · licence "
        f"{esc(t.licence)}.{inferred}\n\n{esc(t.task)}"
    )


def turn_refs(state: ReplayState, turn: float | None) -> list[str]:
    """The provenance ids that grounded the latest run's prediction at `turn` ([] if none).

    The page looks the corrections among them up in one query (`correction_places`).
    """
    t = state.trajectory
    if t is None or not t.turns or state.run is None:
        return []
    index = turn_index(t.turns, turn)
    step = state.run.steps[index] if index < len(state.run.steps) else None
    return list(step.prediction.grounded_by) if step and step.prediction else []


def turn_index(turns: Sequence[object], turn: float | None) -> int:
    """The 0-based index of the slider's 1-based `turn`, clamped to the recording."""
    return min(max(int(turn or 1), 1), len(turns)) - 1


def correction_places(
    services: Services, state: ReplayState, turn: float | None
) -> dict[int, CorrectionPlace]:
    """Where each correction that grounded the prediction at `turn` sits (one query)."""
    return services.annotations.places(correction_ids(turn_refs(state, turn)))


def show_turn(
    page: ReplayPage,
    state: ReplayState,
    turn: float | None,
    places: Mapping[int, CorrectionPlace] | None = None,
) -> dict[gr.components.Component, Any]:
    """The recorded turn `turn` (1-based) and the latest run's prediction for it.

    Args:
        page: the page whose `turn_outputs` the updates name.
        state: the loaded recording and its latest run.
        turn: the slider's value.
        places: the stored step of each correction that grounded the prediction
            (`turn_places`).

    Returns:
        A value for each of `page.turn_outputs`.
    """
    t = state.trajectory
    if t is None or not t.turns:
        blank = dict.fromkeys(page.turn_outputs, "")
        return {**blank, page.real: empty("Pick a recording.")}
    index = turn_index(t.turns, turn)
    renderer = get_domain(t.domain).renderer
    before = t.turns[index - 1].observation if index else t.initial_state
    real = t.turns[index].observation
    step = state.run.steps[index] if state.run and index < len(state.run.steps) else None
    if step is None or step.prediction is None:
        predicted, diff, status = empty("Not run yet."), "", ""
    else:
        predicted = render_observation(renderer, step.prediction.observation, before)
        diff = render_diff(step.prediction.observation, real, kind=renderer)
        status = status_html(step.prediction, places=places) + scores_html(
            step.scores, real is not None, t.domain
        )
    return {
        page.action: t.turns[index].action,
        page.before: render_observation(renderer, before),
        page.real: render_observation(renderer, real, before),
        page.predicted: predicted,
        page.diff: diff,
        page.status: status,
    }


def strip_html(state: ReplayState) -> str:
    """The per-turn headline strip of the latest run."""
    return metric_strip(state.headline_values(), state.label or "no run yet")


def opened(
    page: ReplayPage, services: Services, trajectory_id: str | None, turn: int
) -> dict[gr.components.Component, Any]:
    """The page showing recording `trajectory_id` (None: none) at its 1-based `turn`."""
    state = ReplayState(services.trajectories.get(trajectory_id) if trajectory_id else None)
    return showing(page, services, state, turn)


def showing(
    page: ReplayPage, services: Services, state: ReplayState, turn: int
) -> dict[gr.components.Component, Any]:
    """The page showing `state` (a recording and its run, if any) at its 1-based `turn`."""
    size = max(len(state.trajectory.turns), 1) if state.trajectory else 1
    at = min(max(turn, 1), size)
    return {
        page.state: state,
        page.info: _info(state),
        page.turn: gr.Slider(1, max(size, 2), value=at, step=1, interactive=size > 1),
        page.strip: strip_html(state),
        **show_turn(page, state, at, correction_places(services, state, at)),
    }


def on_load(page: ReplayPage, services: Services, query: dict[str, str]) -> dict[Any, Any]:
    """The `?recording=<id>&turn=<n>` recording opened at that turn; nothing without a link."""
    wanted = query.get("recording", "")
    if not wanted:
        return {}
    turn = query.get("turn", "")
    try:
        updates = opened(page, services, wanted, int(turn) if turn.isdigit() else 1)
    except AWPError as exc:  # a stale link says so beside the controls, nothing else
        return {page.message: inline_error(exc)}
    return updates | picked(page, services, updates[page.state])


def picked(page: ReplayPage, services: Services, state: ReplayState) -> dict[Any, Any]:
    """The domain and recording dropdowns showing `state`'s recording (a link opened it)."""
    if state.trajectory is None:
        return {}
    domain = state.trajectory.domain
    choices = playground_view.trajectory_choices(services.trajectories, domain)
    return {
        page.domain: domain,
        page.trajectory: gr.Dropdown(choices=choices, value=state.trajectory.id),
    }


def load_outputs(page: ReplayPage) -> list[Any]:
    """What `on_load` may fill."""
    return [
        page.state,
        page.domain,
        page.trajectory,
        page.info,
        page.turn,
        page.strip,
        *page.turn_outputs,
        page.message,
    ]


def wire(page: ReplayPage, services: Services) -> None:
    """Bind the page's events."""
    _wire_browse(page, services)
    _wire_run(page, services, Playground(services, SessionKind.REPLAY))


def _wire_browse(page: ReplayPage, services: Services) -> None:
    """Pick a domain and a recording, and move through its turns."""

    def select_domain(domain: str, shown: ReplayState) -> dict[Any, Any]:
        choices = playground_view.trajectory_choices(services.trajectories, domain)
        # A link opens a recording and sets its domain at once: keep the recording it opened.
        kept = (
            shown.trajectory.id if shown.trajectory and shown.trajectory.domain == domain else None
        )
        return {page.trajectory: gr.Dropdown(choices=choices, value=kept)}

    def load(
        trajectory_id: str | None, shown: ReplayState, turn: float | None
    ) -> dict[gr.components.Component, Any]:
        if shown.trajectory is not None and shown.trajectory.id == trajectory_id:
            # Already shown (a link opened it at its turn): loading it again would lose the turn.
            return {page.state: shown}
        return opened(page, services, trajectory_id, 1)

    def show(state: ReplayState, turn: float | None) -> dict[gr.components.Component, Any]:
        return show_turn(page, state, turn, correction_places(services, state, turn))

    page.domain.change(
        inline(select_domain, page.message),
        [page.domain, page.state],
        [page.trajectory, page.message],
        api_name="replay_domain",
        concurrency_limit=None,
    )
    # Every error shows in the one message line under Run, never over a control.
    loaded = [page.state, page.info, page.turn, page.strip, *page.turn_outputs, page.message]
    page.trajectory.change(
        inline(load, page.message),
        [page.trajectory, page.state, page.turn],
        loaded,
        api_name="replay_load",
        concurrency_limit=None,
    )
    page.turn.change(
        inline(show, page.message),
        [page.state, page.turn],
        [*page.turn_outputs, page.message],
        api_name="replay_turn",
        concurrency_limit=None,
    )


def _wire_run(page: ReplayPage, services: Services, playground: Playground) -> None:
    """Run the recording's actions through an engine as a job, followed and reopened by link."""

    def run(state: ReplayState, turn: float, request: gr.Request, **controls: Any):
        # The run is a job; this callback follows it, showing each turn as it is stored (see
        # `replay_job`). Admission is here, so a person over their share is told at once.
        if state.trajectory is None:
            raise BadInputError("Pick a recording first.")
        user = services.identify(request)
        choice = services.choose_engine(user, **controls)
        ticket = admitted(services, request, choice.engine)
        job = replay_job.submit(services, playground, state.trajectory, choice, user.name, ticket)

        def present(shown: ReplayState) -> dict[Any, Any]:
            places = correction_places(services, shown, turn)
            return {
                page.state: shown,
                page.strip: strip_html(shown),
                **show_turn(page, shown, turn, places),
            }

        yield from replay_job.follow(page.job, job, ticket, present)

    def latest(shown: ReplayState) -> dict[Any, Any]:
        # A reopened page follows the run at its latest stored turn, its recording picked.
        at = len(shown.run.steps) if shown.run else 1
        return showing(page, services, shown, at) | picked(page, services, shown)

    panel = page.job
    page.run.click(
        inline(run, page.message),
        [page.state, page.turn],
        # Not the timer: this callback follows the job itself.
        [
            page.state,
            page.strip,
            *page.turn_outputs,
            page.message,
            panel.line,
            panel.job,
            panel.cancel,
        ],
        inputs_kwargs=page.engine.kwargs,
        api_name="replay_run",
        concurrency_limit=None,  # `services.fair` queues it (see ui.queueing)
        show_progress="hidden",  # the job line shows the progress, and Cancel stays usable
    )
    # The panel's Cancel stops the run (before its next turn, and inside the engine), and its
    # poll follows a run a reloaded page reopened (`?job=`): the run so far, then its end.
    shown = [page.state, page.domain, page.trajectory, page.info, page.turn, page.strip]
    shown += page.turn_outputs
    job_panel.follow(
        panel,
        services,
        latest,
        shown,
        "replay_run",
        unfinished=lambda job: replay_job.reopened(panel, job, latest),
    )
