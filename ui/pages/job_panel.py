"""A job's progress line and its Cancel button, for every button that starts long work.

The button submits a job (`backend.jobs`) and returns at once; a timer then polls it each
second, showing what it has done, for how long and how much is left, until it ends, when the
page's own `show` puts the result in place. Cancel reaches the engine (see `backend.jobs`), so
the line says the engine is free only once the work has actually let go of it. The line carries
a `?job=` link: the job lives in the server, so a reloaded page reopens it (`reopen`); a job
whose work is a stored run links to it on the Runs page too (`?run=`).
"""

from __future__ import annotations

import dataclasses
import functools
import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import gradio as gr

from backend.errors import NotFoundError
from backend.jobs import Job, JobStatus, JobView
from ui.errors import inline_error
from ui.services import Services
from ui.users import AccessDeniedError, User

POLL_S = 1.0


@dataclass(frozen=True)
class JobPanel:
    """The components of one job line.

    Attributes:
        kind: the job kind this panel shows (a `?job=` link of that kind opens here).
        page: the id of the page it is on (`ui.workspaces.page_id`), which such a link opens.
        job: the id of the job shown, None when none is.
        line: progress, then the outcome.
        cancel: stops the job (shown while it runs).
        timer: polls the job while one is shown.
        form: the inputs a reopened job fills again with what it was started with (its
            settings, not the page's defaults); empty for a page whose inputs are not a form.
    """

    kind: str
    page: str
    job: gr.State
    line: gr.HTML
    cancel: gr.Button
    timer: gr.Timer
    form: list[Any] = field(default_factory=list)

    @property
    def controls(self) -> list[Any]:
        """What attaching a job updates."""
        return [self.job, self.line, self.cancel, self.timer]

    @property
    def reopened(self) -> list[Any]:
        """What reopening a job updates: its line, and the form it was started from."""
        return [*self.controls, *self.form]


def render(prefix: str, kind: str, page: str) -> JobPanel:
    """Build the line and Cancel (inside the caller's layout); `prefix` keeps ids unique."""
    with gr.Row(elem_classes="awp-job"):
        line = gr.HTML(elem_id=f"{prefix}-job")
        cancel = gr.Button(
            "Cancel", variant="stop", size="sm", scale=0, visible=False, elem_id=f"{prefix}-cancel"
        )
    return JobPanel(kind, page, gr.State(None), line, cancel, gr.Timer(POLL_S, active=False))


def _seconds(value: float) -> str:
    value = round(value)
    return f"{value} s" if value < 120 else f"{value // 60} min {value % 60:02d} s"


def progress_text(view: JobView) -> str:
    """The job in one line of plain words: what it did, for how long, what is left.

    Work of several stages (a training run) names the stage it is in; its count and ETA are the
    stage's own, so the estimate says it covers this stage only.
    """
    if view.status is JobStatus.QUEUED:
        return f"{view.title}: waiting for a free worker."
    if view.status is JobStatus.CANCELLED:
        ran = f" after {_seconds(view.elapsed_s)}" if view.elapsed_s else ""
        return f"{view.title}: cancelled{ran}; the engine is free."
    if view.status is JobStatus.FAILED:
        return f"{view.title}: failed after {_seconds(view.elapsed_s)}: {view.message}"
    budget = view.budget
    if view.total and view.done <= view.total:
        counted = f"{view.done:,} of {'at most ' if budget else ''}{view.total:,} {view.unit}"
    else:
        counted = f"{view.done:,} {view.unit}"
    if view.status is JobStatus.FINISHED:
        # A staged job's count is its last stage's alone, not what the whole job made.
        made = f" ({view.done:,} {view.unit})" if view.done and not view.stage else ""
        return f"{view.title}: done in {_seconds(view.elapsed_s)}{made}."
    if view.cancelling:
        return f"{view.title}: cancelling (the engine stops at its next token or request)…"
    title = f"{view.title} · {view.stage}" if view.stage else view.title
    if view.stage and view.total is None:  # a stage nothing counts (loading, saving)
        return f"{title}: {_seconds(view.elapsed_s)}"
    if not view.done and view.unit == "tokens":
        # Nothing decoded yet: the model is loading, or another call holds the engine.
        left = "waiting for the engine (loading, or busy with another call)"
    elif not view.done:
        left = f"no estimate before the first of the {view.unit} is done"
    elif view.eta_s is None:
        left = "no estimate yet"
    else:
        # A budget is an upper bound (generation or an episode may stop sooner); items are
        # counted.
        left = f"{'at most' if budget else 'about'} {_seconds(view.eta_s)} left"
        left += " in this stage" if view.stage else ""
    return f"{title}: {counted} · {_seconds(view.elapsed_s)} · {left}"


def line_html(view: JobView) -> str:
    """The progress line, with the links that reopen the job after a reload and open its run."""
    state = {
        JobStatus.FINISHED: "done",
        JobStatus.FAILED: "failed",
        JobStatus.CANCELLED: "cancelled",
    }.get(view.status, "running")
    link = "" if view.ended else f' · <a href="?job={view.id}">reopen</a>'
    if view.run_id is not None:
        link += f' · <a href="?run={view.run_id}">run #{view.run_id}</a>'
    return (
        f'<div class="awp-status awp-job-{state}" data-job="{view.id}" data-status="'
        f'{view.status.value}">{html.escape(progress_text(view))}{link}</div>'
    )


def readable(services: Services, user: User, job_id: str) -> Job:
    """The job, if `user` started it (or is an admin): a link is no key to others' work.

    Raises:
        NotFoundError: no such job.
        AccessDeniedError: someone else's job.
    """
    job = services.jobs.get(job_id)
    if job.owner != user.name and not user.is_admin:
        raise AccessDeniedError("This job was started by someone else.")
    return job


def attached(panel: JobPanel, view: JobView) -> dict[Any, Any]:
    """Show `view` in the panel and poll it while it runs."""
    return {
        panel.job: None if view.ended else view.id,
        panel.line: line_html(view),
        panel.cancel: gr.Button(visible=not view.ended, interactive=not view.cancelling),
        panel.timer: gr.Timer(active=not view.ended),
    }


def wire(
    panel: JobPanel,
    services: Services,
    button: gr.Button,
    start: Callable[..., Job],
    inputs: Sequence[Any],
    show: Callable[[Any], dict[Any, Any]],
    outputs: Sequence[Any],
    api_name: str,
    inputs_kwargs: dict[str, Any] | None = None,
    stopped: Callable[[], dict[Any, Any]] | None = None,
    form: bool = False,
) -> None:
    """`button` starts `start(*inputs, request, **inputs_kwargs) -> Job`; the panel follows it.

    `show(result)` fills `outputs` once the job finishes; a failure or Cancel leaves them as
    they were, except what `stopped()` updates then (a runs list, to show how the run ended).
    A start that raises (bad input) says why in the line and starts nothing. With `form`, the
    job keeps its `inputs`' values, and a reopened job puts them back (`reopen`).
    """
    if form:
        panel.form.extend(inputs)

    @functools.wraps(start)
    def begin(*args: Any, **kwargs: Any) -> dict[Any, Any]:
        try:
            job = start(*args, **kwargs)
        except Exception as exc:
            return {panel.line: inline_error(exc)}
        if form:  # Gradio passes the request after the inputs: only the inputs are kept
            job.asked = tuple(args[: len(inputs)])
        # Polled at least once, even when it ended before this answer (a judge that gives up
        # at once): the poll is what shows its result.
        return attached(panel, job.view()) | {panel.job: job.id, panel.timer: gr.Timer(active=True)}

    button.click(
        begin,
        list(inputs),
        panel.controls,
        inputs_kwargs=inputs_kwargs,
        api_name=api_name,
        concurrency_limit=None,
    )
    follow(panel, services, show, outputs, api_name, stopped)


def follow(
    panel: JobPanel,
    services: Services,
    show: Callable[[Any], dict[Any, Any]],
    outputs: Sequence[Any],
    api_name: str,
    stopped: Callable[[], dict[Any, Any]] | None = None,
    unfinished: Callable[[Job], dict[Any, Any]] | None = None,
) -> None:
    """The panel's timer polls its job (`{api_name}_poll`) and its Cancel stops it.

    `wire` calls it for a button that only starts a job; a page whose button follows its job
    itself (the Playground's Step streams its text) calls it alone, for the Cancel and for a
    job a reloaded page reopens. `unfinished(job)` updates `outputs` while the job runs and
    once it ended without a result (a step's text so far, then that it was not taken).
    """

    def poll(job_id: str | None, request: gr.Request) -> dict[Any, Any]:
        if job_id is None:
            return {panel.timer: gr.Timer(active=False)}
        user = services.identify(request, individual=True)
        try:
            job = readable(services, user, job_id)
        except (NotFoundError, AccessDeniedError) as exc:
            return {
                panel.job: None,
                panel.timer: gr.Timer(active=False),
                panel.line: inline_error(exc),
            }
        view = job.view()
        updates = attached(panel, view)
        if not view.ended and not view.cancelling:
            # Cancel was shown when the job started or reopened: re-sending it every tick
            # re-renders it, and a button that moves under the pointer is hard to press.
            del updates[panel.cancel]
        if view.status is JobStatus.FINISHED:
            try:
                updates |= show(job.result)
            except Exception as exc:  # showing a result must not hide that the job is done
                updates[panel.line] = inline_error(exc)
        elif view.ended and stopped is not None:
            updates |= stopped()
        if view.status is not JobStatus.FINISHED and unfinished is not None:
            updates |= unfinished(job)
        return updates

    def cancel(job_id: str | None, request: gr.Request) -> dict[Any, Any]:
        if job_id is None:
            return {panel.cancel: gr.Button(visible=False)}
        user = services.identify(request, individual=True)
        try:
            readable(services, user, job_id)
            return attached(panel, services.jobs.cancel(job_id))
        except (NotFoundError, AccessDeniedError) as exc:
            return {panel.line: inline_error(exc)}

    panel.timer.tick(
        poll,
        [panel.job],
        [*panel.controls, *outputs],
        api_name=f"{api_name}_poll",
        concurrency_limit=None,
        show_progress="hidden",
    )
    panel.cancel.click(
        cancel,
        [panel.job],
        panel.controls,
        api_name=f"{api_name}_cancel",
        concurrency_limit=None,
        queue=False,
    )


def panels_in(pages: Sequence[Any], depth: int = 3) -> list[JobPanel]:
    """Every job panel of the rendered pages (their dataclasses, and the sections inside them)."""
    found: list[JobPanel] = []
    for page in pages:
        if isinstance(page, JobPanel):
            found.append(page)
        elif depth and dataclasses.is_dataclass(page) and not isinstance(page, type):
            fields = [getattr(page, f.name) for f in dataclasses.fields(page)]
            found += panels_in(fields, depth - 1)
    return found


def reopen(
    panels: Sequence[JobPanel], services: Services, query: dict[str, str], user: User
) -> tuple[str | None, dict[Any, Any]]:
    """The `?job=` link's job, followed again by the panel of its kind (after a reload).

    The panel polls it at once, so a job that ended meanwhile shows its result too; a panel
    with a form shows the settings the job was started with.

    Returns:
        The id of the page to show (None when the link names no job), and the updates.

    Raises:
        NotFoundError: no such job (it ended long ago, or the server restarted).
        AccessDeniedError: someone else's job.
    """
    job_id = query.get("job", "")
    if not job_id:
        return None, {}
    job = readable(services, user, job_id)
    panel = next((p for p in panels if p.kind == job.kind), None)
    if panel is None:
        return None, {}
    view = job.view()
    settings = dict(zip(panel.form, job.asked, strict=True)) if job.asked else {}
    return panel.page, {
        panel.job: job.id,
        panel.line: line_html(view),
        panel.cancel: gr.Button(visible=not view.ended, interactive=not view.cancelling),
        panel.timer: gr.Timer(active=True),
        **settings,
    }
