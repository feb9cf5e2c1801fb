"""One job: its status, its progress and the honest ETA computed from it, and its Cancel.

`backend.jobs` runs jobs (its registry) and lets deep code report to the job it works for;
this module is the job's own state, as both the work and the pages that poll it see it.
Callers import these names from `backend.jobs`, the one public module.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from backend.errors import JobCancelledError

BUDGETS = frozenset({"tokens", "steps"})
"""Units whose total is a budget, not a count: generation stops at end-of-sequence, an episode
at its end, so the work may finish before it reaches the total."""
CANCELLED = "Cancelled"
"""Why a job stopped when the person pressed Cancel."""


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
        kind: what it does (`step`, `replay`, `futures`, `judge`, `battle`, `bench`, `rollout`,
            `train`).
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
        self._reason = CANCELLED
        self.result: Any = None
        self.asked: tuple[Any, ...] = ()
        """What its page's form held when it started, so a reopened page shows those settings."""
        self.error: BaseException | None = None
        self.partial: Any = None
        """What the work has made so far (a step's text as it streams), for a page following it;
        the work sets it, a reader takes whatever is there (one assignment is atomic)."""

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
            raise JobCancelledError(self._reason)

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

    @property
    def reason(self) -> str:
        """Why it was cancelled: the person's Cancel, or the server stopping."""
        return self._reason

    def _request_cancel(self, reason: str = CANCELLED) -> None:
        with self._lock:
            if not self._cancel.is_set():
                self._reason = reason
            self._cancel.set()
            if self._status is JobStatus.QUEUED:  # never started: nothing to wait for
                self._status, self._message = JobStatus.CANCELLED, f"{reason} before it started."
                self._over.set()

    def _begin(self) -> bool:
        with self._lock:
            if self._status is not JobStatus.QUEUED:
                return False
            self._status, self._started = JobStatus.RUNNING, self._clock()
            return True

    def _end(
        self,
        status: JobStatus,
        message: str | None,
        result: Any = None,
        error: BaseException | None = None,
    ) -> None:
        with self._lock:
            self._status, self._message, self._ended = status, message, self._clock()
            self.result, self.error = result, error
        self._over.set()
