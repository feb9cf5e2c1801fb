"""Jobs: long work in a worker thread, with real progress, an honest ETA and a Cancel.

A page that starts something long (many futures, a judge verdict, an arena battle, a benchmark,
a rollout, a training run) submits it here and returns at once; the page then polls the job.
The registry belongs to the process (built once in the composition root), not to a browser
tab, so a job goes on when its page is reloaded and can be reopened by its id.

Cancel is cooperative and reaches into generation: the worker thread runs the work with its
job as the *current job* (a context variable), and engines consult it while they decode (the
transformers engine stops within one token, the openai engine sends no further request), so a
cancelled job lets go of the engine instead of holding it until its budget is spent.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

from backend.errors import AWPError, JobCancelledError, NotFoundError
from backend.job_state import ENDED, Job, JobStatus, JobView

__all__ = [
    "ENDED",
    "KEEP",
    "UNEXPECTED",
    "Job",
    "JobRegistry",
    "JobStatus",
    "JobView",
    "advance",
    "attach_run",
    "begin_stage",
    "cancel_requested",
    "carried",
    "count",
    "count_tokens",
    "current_job",
    "raise_if_cancelled",
]

logger = logging.getLogger(__name__)

UNEXPECTED = "Failed unexpectedly; see the server log."
KEEP = 200
"""Ended jobs kept for reopening (the oldest ended ones go first)."""
STOPPING = "The server stopped"
"""Why a job was cancelled when the process closes its registry."""
GRACE_S = 60.0
"""How long closing the registry waits for cancelled work to let go (a training run saves a
checkpoint first) before the engines and the database it uses are closed under it."""

P = ParamSpec("P")
T = TypeVar("T")

_CURRENT: contextvars.ContextVar[Job | None] = contextvars.ContextVar("awp_job", default=None)


def current_job() -> Job | None:
    """The job the calling thread works for (None outside a job)."""
    return _CURRENT.get()


def cancel_requested() -> bool:
    """Whether the current job (if any) was cancelled: engines stop generating when it was."""
    job = _CURRENT.get()
    return job is not None and job.cancelled


def raise_if_cancelled() -> None:
    """Stop the current job's work here if it was cancelled.

    Raises:
        JobCancelledError: it was.
    """
    job = _CURRENT.get()
    if job is not None:
        job.check()


def attach_run(run_id: int) -> None:
    """Name the run-store record the current job's work writes (nothing outside a job)."""
    job = _CURRENT.get()
    if job is not None:
        job.attach_run(run_id)


def begin_stage(stage: str, total: int | None, unit: str) -> None:
    """Start a stage of the current job's work (`Job.begin_stage`; nothing outside a job).

    Raises:
        JobCancelledError: the current job was cancelled.
    """
    job = _CURRENT.get()
    if job is not None:
        job.begin_stage(stage, total, unit)


def advance(done: int, total: int | None = None) -> None:
    """Say how many units of the current job's stage are done (nothing outside a job)."""
    job = _CURRENT.get()
    if job is not None:
        job.advance(done, total)


def count(units: int, unit: str) -> None:
    """Count `units` of `unit` done towards the current job's progress.

    Nothing happens outside a job or when the job counts another unit, so deep code (an engine
    decoding, an episode stepping) reports what it does without knowing who listens.
    """
    job = _CURRENT.get()
    if job is not None and job.unit == unit:
        job.add(units)


def count_tokens(tokens: int) -> None:
    """Count decoded tokens towards the current job's progress (nothing outside a job)."""
    count(tokens, "tokens")


def carried(fn: Callable[P, T]) -> Callable[P, T]:
    """`fn` bound to the caller's job, for the threads a job's work starts itself.

    A thread pool's threads do not inherit context variables; each call runs in its own copy
    of the caller's context, so one wrapped function may run in several threads at once.
    """
    context = contextvars.copy_context()

    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return context.copy().run(fn, *args, **kwargs)

    return run


class JobRegistry:
    """The process's jobs: started on a bounded pool of workers, listed, polled and cancelled.

    Args:
        workers: jobs that run at once; the rest wait `queued` (an in-process engine does one
            call at a time anyway, and a server is kept busy by each job's own batch).
        keep: ended jobs kept for reopening.
        clock: seconds, monotonic (a test may pass its own).
    """

    def __init__(
        self, workers: int, keep: int = KEEP, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="awp-job")
        self._keep = keep
        self._clock = clock
        self._lock = threading.Lock()
        self._jobs: dict[str, Job] = {}

    def submit(
        self,
        kind: str,
        owner: str,
        title: str,
        work: Callable[[Job], Any],
        *,
        total: int | None = None,
        unit: str = "tokens",
        pooled: bool = True,
    ) -> Job:
        """Start `work(job)` on a worker; returns the job at once.

        What `work` returns becomes `job.result`. A `JobCancelledError`, or any error after
        Cancel was pressed, ends it `cancelled`; a domain error ends it `failed` with its
        message; anything else is logged and ends it `failed` without its text (which can hold
        paths or secrets). Either way the error itself is kept as `job.error`, for a caller
        that follows the job and reports it as if it had run the work itself.

        Args:
            kind: what it does (`Job.kind`; a page's panel of that kind reopens it).
            owner: who started it.
            title: what it does, in words.
            work: the work, given its job.
            total: units it will do at most, when known (it may say later).
            unit: what it counts.
            pooled: run on the bounded pool (waiting `queued` for a worker). A Playground step
                is not pooled: `backend.fair_use` already admits steps (a baseline one at
                once, a model one in its turn, its place shown), so it starts on its own
                thread and never waits behind a benchmark for a worker.
        """
        job = Job(kind, title, owner, total, unit, self._clock)
        with self._lock:
            self._jobs[job.id] = job
            self._forget_old()
        if pooled:
            self._pool.submit(self._run, job, work)
        else:
            name = f"awp-{kind}-{job.id}"
            threading.Thread(target=self._run, args=(job, work), name=name, daemon=True).start()
        return job

    def get(self, job_id: str) -> Job:
        """The job with that id.

        Raises:
            NotFoundError: no job has it (a typo, or it ended long ago or before a restart).
        """
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise NotFoundError(
                f"Job {job_id!r} is not known here: it ended long ago, or the server restarted."
            )
        return job

    def cancel(self, job_id: str) -> JobView:
        """Ask a job to stop; a queued one ends at once, a running one at its next check.

        Raises:
            NotFoundError: no job has that id.
        """
        job = self.get(job_id)
        job._request_cancel()
        return job.view()

    def listed(self, owner: str | None = None) -> list[JobView]:
        """Jobs (of `owner`, or everyone's), newest first."""
        with self._lock:
            jobs = list(self._jobs.values())
        views = [job.view() for job in reversed(jobs)]
        return [view for view in views if owner is None or view.owner == owner]

    def close(self, grace_s: float = GRACE_S) -> list[JobView]:
        """Cancel every job, wait for their work to let go, and stop taking new ones.

        The composition root closes the registry first and the engines and the database after
        it: work still running when those close fails under them, and a run it writes could
        no longer be marked as ended. Work cancelled here ends `cancelled` with the reason
        "The server stopped" (a run record reads `interrupted`, saying so).

        Returns:
            The jobs whose work had not let go after `grace_s` (logged; a run of theirs stays
            `running`, which the next start's reaping marks interrupted).
        """
        with self._lock:
            jobs = list(self._jobs.values())
        for job in jobs:
            job._request_cancel(STOPPING)
        deadline = time.monotonic() + grace_s
        stuck = [job for job in jobs if not job.wait(max(0.0, deadline - time.monotonic()))]
        for job in stuck:
            logger.warning("%s job %s still running at shutdown", job.kind, job.id)
        self._pool.shutdown(wait=False, cancel_futures=True)
        return [job.view() for job in stuck]

    def _forget_old(self) -> None:
        ended = [job_id for job_id, job in self._jobs.items() if job.view().ended]
        for job_id in ended[: max(0, len(ended) - self._keep)]:
            del self._jobs[job_id]

    @staticmethod
    def _run(job: Job, work: Callable[[Job], Any]) -> None:
        if not job._begin():
            return
        token = _CURRENT.set(job)
        try:
            result = work(job)
        except Exception as exc:
            if job.cancelled or isinstance(exc, JobCancelledError):
                job._end(JobStatus.CANCELLED, f"{job.reason}.", error=exc)
            elif isinstance(exc, AWPError):
                job._end(JobStatus.FAILED, str(exc), error=exc)
            else:
                logger.exception("%s job %s failed", job.kind, job.id)
                job._end(JobStatus.FAILED, UNEXPECTED, error=exc)
        else:
            job._end(JobStatus.FINISHED, None, result)
        finally:
            _CURRENT.reset(token)
