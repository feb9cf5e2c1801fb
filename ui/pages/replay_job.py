"""The Replay page's "Run the whole recording" as a job: turns done, its Cancel, its reopening.

The run is `ui.replay.run_trajectory` (each turn one Playground step, the one step path) inside
a job of the process's registry (`backend.jobs`). It counts the recording's turns (it does all
of them, so the count is no budget and the ETA is the rate so far), stops before the next turn
when Cancel is pressed (and inside the engine, which consults the current job while it
decodes), and keeps the run so far as its `partial`, so the Run button's callback shows each
turn as it is stored, and a page reloaded with `?job=` shows the run so far too. Like a
Playground step, the job starts on its own thread: `backend.fair_use` decides when it may use
the engine, it holds that turn for the whole recording, and its place in the queue shows in
its line while it waits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from backend.fair_use import Ticket
from backend.jobs import Job, JobStatus
from backend.types import Trajectory
from ui.pages.job_panel import JobPanel
from ui.pages.playground_step import Waiting, frames, line, started
from ui.play import Playground
from ui.queueing import places
from ui.replay import ReplayState, run_trajectory
from ui.services import EngineChoice, Services

KIND = "replay"
UNIT = "turns"
"""What the job counts: the recording's turns, all of which it runs (a count, not a budget)."""


def submit(
    services: Services,
    playground: Playground,
    trajectory: Trajectory,
    choice: EngineChoice,
    owner: str,
    ticket: Ticket,
) -> Job:
    """Start the run as a job that waits its turn with `ticket`, runs every turn, gives it back.

    Its result (and its `partial` after each stored turn) is the page's state for the run.
    """
    label = f"{choice.engine} · {choice.history_mode.value}"

    def work(job: Job) -> ReplayState:
        state = ReplayState(trajectory, None, label)
        with ticket:
            for place in places(ticket):
                job.partial = Waiting(place)
                job.check()
            for done, session in enumerate(run_trajectory(playground, trajectory, choice, owner)):
                state = replace(state, run=session)
                job.partial = state
                job.advance(done + 1)
                job.check()  # Cancel stops here, before the next turn
        return state

    title = f"Replay {trajectory.id} ({choice.engine})"
    total = len(trajectory.turns)
    return services.jobs.submit(KIND, owner, title, work, total=total, unit=UNIT, pooled=False)


def follow(
    panel: JobPanel,
    job: Job,
    ticket: Ticket,
    present: Callable[[ReplayState], dict[Any, Any]],
) -> Iterator[dict[Any, Any]]:
    """Frames of the Run button's callback while its job runs, then its outcome.

    Each stored turn shows at once (`present(state)`); a cancelled run keeps the turns it
    stored; a failed one shows them and then raises the run's own error, as if the callback
    had run it.
    """
    yield started(panel, job.view())
    yield from frames(
        panel, job, lambda partial: present(partial) if isinstance(partial, ReplayState) else {}
    )
    ticket.release()  # the work gives it back; a job cancelled before it began never did
    view = job.view()
    last = job.result if view.status is JobStatus.FINISHED else job.partial
    shown = present(last) if isinstance(last, ReplayState) else {}
    yield shown | started(panel, view)
    if view.status is JobStatus.FAILED and job.error is not None:
        raise job.error


def reopened(
    panel: JobPanel, job: Job, present: Callable[[ReplayState], dict[Any, Any]]
) -> dict[Any, Any]:
    """What a reopened page's poll shows of a run that has no result (yet): the run so far."""
    partial = job.partial
    updates: dict[Any, Any] = {panel.line: line(job.view(), partial)}
    return updates | present(partial) if isinstance(partial, ReplayState) else updates
