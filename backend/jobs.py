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
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ParamSpec, TypeVar

from backend.errors import AWPError, JobCancelledError, NotFoundError

logger = logging.getLogger(__name__)

UNEXPECTED = "Failed unexpectedly; see the server log."
KEEP = 200
"""Ended jobs kept for reopening (the oldest ended ones go first)."""
BUDGETS = frozenset({"tokens", "steps"})
"""Units whose total is a budget, not a count: generation stops at end-of-sequence, an episode
at its end, so the work may finish before it reaches the total."""

P = ParamSpec("P")
T = TypeVar("T")

_CURRENT: contextvars.ContextVar[Job | None] = contextvars.ContextVar("awp_job", default=None)


class JobStatus(StrEnum):
    """Where a job is: waiting for a worker, running, or ended one of three ways."""

    QUEUED = "queued"
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    CANCELLED = "cancelled"


ENDED = frozenset({JobStatus.FINISHED, JobStatus.FAILED, JobStatus.CANCELLED})


@dataclass(frozen=True)
class JobView:
    """One moment of a job, safe to hand to any thread.

    Attributes:
        id: the job's id (unguessable: a link with it reopens the job).
        kind: what it does (`futures`, `judge`, `battle`, `bench`, `rollout`, `train`).
        title: what it does, in words.
        owner: who started it.
        status: where it is.
        cancelling: Cancel was pressed and the work has not let go yet.
        done: units done (`unit`).
        total: units it will do at most, when known.
        unit: what it counts: `tokens` or `steps` (budgets: the work may end sooner), or
            items it does all of (`items`, `episodes`).
        elapsed_s: seconds since it started running (0 while queued).
        eta_s: seconds left in the current stage at its rate so far; None until there is a
            rate, or no total.
        message: why it failed or was cancelled.
        run_id: its record in the run store, for runs (set by `storage.run_lifecycle`).
        stage: the stage of work it is in, for work of several stages each counted in its own
            unit (a training run: the base model's benchmark, training steps, the tuned one's).
    """

    id: str
    kind: str
    title: str
    owner: str
    status: JobStatus
    cancelling: bool
    done: int
    total: int | None
    unit: str
    elapsed_s: float
    eta_s: float | None
    message: str | None
    run_id: int | None
    stage: str | None

    @property
    def ended(self) -> bool:
        """Whether the work has stopped (its worker let go of the engine)."""
        return self.status in ENDED

    @property
    def budget(self) -> bool:
        """Whether `total` is an upper bound (the work may end sooner) rather than a count."""
        return self.unit in BUDGETS


class Job:
    """A job as its work sees it: report progress, check for Cancel, say which run it is.

    Args:
        kind: what it does.
        title: what it does, in words.
        owner: who started it.
        total: units it will do at most, when known.
        unit: what it counts.
        clock: seconds, monotonic.
    """

    def __init__(
        self,
        kind: str,
        title: str,
        owner: str,
        total: int | None,
        unit: str,
        clock: Callable[[], float],
    ) -> None:
        self.id = secrets.token_hex(6)
        self.kind, self.title, self.owner, self.unit = kind, title, owner, unit
        self._clock = clock
        self._lock = threading.Lock()
        self._cancel = threading.Event()
        self._over = threading.Event()
        self._status = JobStatus.QUEUED
        self._done, self._total = 0, total
        self._started: float | None = None
        self._stage: str | None = None
        self._stage_started: float | None = None
        self._ended: float | None = None
        self._message: str | None = None
        self._run_id: int | None = None
        self.result: Any = None
        self.asked: tuple[Any, ...] = ()
        """What its page's form held when it started, so a reopened page shows those settings."""

    @property
    def cancelled(self) -> bool:
        """Whether Cancel was pressed: the work should stop at its next chance."""
        return self._cancel.is_set()

    def check(self) -> None:
        """Stop here if Cancel was pressed.

        Raises:
            JobCancelledError: it was.
        """
        if self._cancel.is_set():
            raise JobCancelledError("Cancelled.")

    def advance(self, done: int, total: int | None = None) -> None:
        """Say how many units are done (and, when it is known better now, the total)."""
        with self._lock:
            self._done = done
            if total is not None:
                self._total = total

    def add(self, units: int) -> None:
        """Count `units` more done (tokens as they are decoded)."""
        with self._lock:
            self._done += units

    def begin_stage(self, stage: str, total: int | None, unit: str) -> None:
        """Start a stage of the work, counted from zero in its own unit with its own ETA.

        A stage's start is a natural place to stop, so a cancelled job stops here.

        Raises:
            JobCancelledError: Cancel was pressed.
        """
        self.check()
        with self._lock:
            self._stage, self._done, self._total, self.unit = stage, 0, total, unit
            self._stage_started = self._clock()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Block until the job has ended (its worker let go); whether it did within the time."""
        return self._over.wait(timeout_s)

    def attach_run(self, run_id: int) -> None:
        """Name the run-store record this job's work writes."""
        with self._lock:
            self._run_id = run_id

    def view(self) -> JobView:
        """This moment of the job."""
        with self._lock:
            now = self._clock() if self._ended is None else self._ended
            elapsed = 0.0 if self._started is None else max(0.0, now - self._started)
            since = self._stage_started if self._stage_started is not None else self._started
            spent = 0.0 if since is None else max(0.0, now - since)
            eta = None
            if self._status is JobStatus.RUNNING and self._total and self._done and spent > 0:
                eta = max(0, self._total - self._done) * spent / self._done
            return JobView(
                self.id,
                self.kind,
                self.title,
                self.owner,
                self._status,
                self._cancel.is_set() and self._status not in ENDED,
                self._done,
                self._total,
                self.unit,
                elapsed,
                eta,
                self._message,
                self._run_id,
                self._stage,
            )

    def _request_cancel(self) -> None:
        with self._lock:
            self._cancel.set()
            if self._status is JobStatus.QUEUED:  # never started: nothing to wait for
                self._status, self._message = JobStatus.CANCELLED, "Cancelled before it started."
                self._over.set()

    def _begin(self) -> bool:
        with self._lock:
            if self._status is not JobStatus.QUEUED:
                return False
            self._status, self._started = JobStatus.RUNNING, self._clock()
            return True

    def _end(self, status: JobStatus, message: str | None, result: Any = None) -> None:
        with self._lock:
            self._status, self._message, self._ended = status, message, self._clock()
            self.result = result
        self._over.set()


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
    ) -> Job:
        """Start `work(job)` on a worker; returns the job at once.

        What `work` returns becomes `job.result`. A `JobCancelledError`, or any error after
        Cancel was pressed, ends it `cancelled`; a domain error ends it `failed` with its
        message; anything else is logged and ends it `failed` without its text (which can hold
        paths or secrets).
        """
        job = Job(kind, title, owner, total, unit, self._clock)
        with self._lock:
            self._jobs[job.id] = job
            self._forget_old()
        self._pool.submit(self._run, job, work)
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

    def close(self) -> None:
        """Cancel every job and stop taking new ones (workers finish their current check)."""
        with self._lock:
            jobs = list(self._jobs.values())
        for job in jobs:
            job._request_cancel()
        self._pool.shutdown(wait=False, cancel_futures=True)

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
                job._end(JobStatus.CANCELLED, "Cancelled.")
            elif isinstance(exc, AWPError):
                job._end(JobStatus.FAILED, str(exc))
            else:
                logger.exception("%s job %s failed", job.kind, job.id)
                job._end(JobStatus.FAILED, UNEXPECTED)
        else:
            job._end(JobStatus.FINISHED, None, result)
        finally:
            _CURRENT.reset(token)
