"""The Playground's Step as a job: its progress line, its Cancel, and a reload that reopens it.

A step runs `ui.play.Playground.step` (the one step path, `backend.stepping.run_step`) inside a
job of the process's registry (`backend.jobs`), so it counts the tokens it decodes against its
output budget (an upper bound: the model may stop sooner), its Cancel reaches the engine, and a
reloaded page reopens it with a `?job=` link. The job keeps what the step has made so far as its
`partial`; the Step button's streaming callback reads it a few times a second and shows it, and
so does the panel's poll on a reopened page. The job starts on its own thread (not the pool):
`backend.fair_use` already decides when a step may use the engine, and the job waits there,
its place in the queue shown in its line, and Cancel works while it waits too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from backend.engines.base import engine_spec
from backend.errors import EngineRequestError
from backend.fair_use import Ticket
from backend.jobs import Job, JobStatus, JobView
from ui.pages import job_panel, playground_view
from ui.pages.job_panel import JobPanel
from ui.pages.playground_view import StepView
from ui.play import Done, Partial, Playground, Preparing
from ui.queueing import places
from ui.renderers.base import esc
from ui.services import EngineChoice, Services
from ui.session import PlaySession

KIND = "step"
FOLLOW_S = 0.25
"""How often the Step button's callback reads its job (the text streams at this pace)."""


@dataclass(frozen=True)
class Waiting:
    """The step waits for its turn at the engine (`backend.fair_use`)."""

    place: str


def submit(
    services: Services,
    playground: Playground,
    session: PlaySession,
    action: str,
    choice: EngineChoice,
    user: str,
    owner: str,
    ticket: Ticket,
) -> Job:
    """Start the step as a job that waits its turn with `ticket`, steps, and gives it back.

    Its result is the session with the stored step; its total is the output budget for a model
    engine (the tokens it may decode) and none for a baseline, which decodes nothing.
    """

    def work(job: Job) -> PlaySession:
        with ticket:
            for place in places(ticket):
                job.partial = Waiting(place)
                job.check()
            for event in playground.step(session, action, choice, user):
                if isinstance(event, Done):
                    return event.session
                job.partial = event
        raise EngineRequestError("The step ended without a stored prediction.")

    baseline = engine_spec(choice.engine).baseline
    total = None if baseline else choice.params.max_new_tokens
    title = f"Step {len(session.steps) + 1} ({choice.engine})"
    return services.jobs.submit(KIND, owner, title, work, total=total, pooled=False)


def line(view: JobView, partial: Any) -> str:
    """The job's line, with the person's place in the queue while the step waits for it."""
    place = partial.place if isinstance(partial, Waiting) and not view.ended else ""
    queued = f'<div class="awp-queue">{esc(place)}</div>' if place else ""
    return job_panel.line_html(view) + queued


def shown(steps: StepView, partial: Any) -> dict[Any, Any]:
    """The step view for what the step has made so far (nothing while it waits its turn).

    The frame is always whole (a step's opening frame, then its text), as a follower may have
    missed the opening frame: nothing of the previous step stays on screen.
    """
    if isinstance(partial, Preparing):
        return playground_view.streaming(steps, partial)
    if isinstance(partial, Partial):
        opening = playground_view.streaming(steps, replace(partial, text="", reasoning=""))
        return opening | playground_view.streaming(steps, partial)
    return {}


def started(panel: JobPanel, view: JobView) -> dict[Any, Any]:
    """The panel showing `view`, its timer left alone: the callback itself follows the job."""
    updates = job_panel.attached(panel, view)
    del updates[panel.timer]
    return updates


def follow(
    panel: JobPanel,
    steps: StepView,
    job: Job,
    ticket: Ticket,
    session: PlaySession,
    action: str,
    present: Callable[[PlaySession], dict[Any, Any]],
) -> Iterator[dict[Any, Any]]:
    """Frames of the Step button's callback while its job runs, then its outcome.

    A finished step shows the stored step (`present(session)`); a cancelled one says so and
    that nothing was stored; a failed one clears the panels and raises the step's own error,
    as if the callback had run it.
    """
    yield started(panel, job.view()) | playground_view.pending(steps, session, action)
    yield from frames(panel, job, lambda partial: shown(steps, partial))
    ticket.release()  # the work gives it back; a job cancelled before it began never did
    view = job.view()
    ended = started(panel, view)
    if view.status is JobStatus.FINISHED:
        yield present(job.result) | ended
        return
    yield playground_view.failed(steps, len(session.steps) + 1, action, why(view)) | ended
    if view.status is JobStatus.FAILED and job.error is not None:
        raise job.error


def frames(
    panel: JobPanel, job: Job, show: Callable[[Any], dict[Any, Any]]
) -> Iterator[dict[Any, Any]]:
    """A streaming callback's frames until `job` ends: its line, and `show` of each new partial.

    Only what changed is sent (the line when its text moves, the partial when the work set a
    new one), so a queue of waiting followers stays cheap to serve.
    """
    seen: Any = None
    said = ""
    while not job.wait(FOLLOW_S):
        partial = job.partial
        now = line(job.view(), partial)
        frame: dict[Any, Any] = {} if now == said else {panel.line: now}
        said = now
        if partial is not seen:
            seen = partial
            frame |= show(partial)
        if frame:
            yield frame


def why(view: JobView) -> str:
    """Why an ended step stored nothing."""
    return "You cancelled it." if view.status is JobStatus.CANCELLED else view.message or ""


def reopened(panel: JobPanel, steps: StepView, job: Job) -> dict[Any, Any]:
    """What a reopened page's poll shows of a step that has no result (yet).

    While it runs: its line and its text so far. Once it was cancelled or failed: that it was
    not taken (the text it had streamed goes).
    """
    view, partial = job.view(), job.partial
    if not view.ended:
        return {panel.line: line(view, partial)} | shown(steps, partial)
    if isinstance(partial, Partial):
        return playground_view.failed(steps, partial.index, partial.request.action, why(view))
    return {}
