"""The job registry: work on worker threads, progress and ETA, Cancel that frees the worker."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from backend.errors import BadInputError, JobCancelledError, NotFoundError
from backend.jobs import (
    UNEXPECTED,
    Job,
    JobRegistry,
    JobStatus,
    carried,
    count_tokens,
    raise_if_cancelled,
)
from ui.pages.job_panel import progress_text

WAIT_S = 30


class Clock:
    """A clock the test moves by hand, so ETAs are exact."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def until_cancelled(started: threading.Event) -> Callable[[Job], int]:
    def work(job: Job) -> int:
        started.set()
        steps = 0
        while True:
            steps += 1
            job.advance(steps)
            raise_if_cancelled()
            job._cancel.wait(0.01)

    return work


def test_cancel_stops_the_work_and_frees_the_worker_for_the_next_job() -> None:
    registry = JobRegistry(workers=1)
    started = threading.Event()
    long = registry.submit("futures", "ann", "Sampling", until_cancelled(started))
    queued = registry.submit("futures", "ann", "Next", lambda job: "second result")
    assert started.wait(WAIT_S)
    assert long.view().status is JobStatus.RUNNING
    assert queued.view().status is JobStatus.QUEUED  # one worker: it waits its turn
    registry.cancel(long.id)
    assert long.wait(WAIT_S)
    assert long.view().status is JobStatus.CANCELLED
    assert "the engine is free" in progress_text(long.view())
    # The worker the cancelled job held runs the next one to its end.
    assert queued.wait(WAIT_S)
    assert queued.view().status is JobStatus.FINISHED
    assert queued.result == "second result"
    registry.close()


def test_a_queued_job_cancelled_never_runs() -> None:
    registry = JobRegistry(workers=1)
    gate = threading.Event()
    ran: list[str] = []
    first = registry.submit("judge", "ann", "First", lambda job: gate.wait(WAIT_S))
    second = registry.submit("judge", "ann", "Second", lambda job: ran.append("ran"))
    view = registry.cancel(second.id)
    assert view.status is JobStatus.CANCELLED and view.ended
    gate.set()
    assert first.wait(WAIT_S) and second.wait(WAIT_S)
    assert ran == []
    registry.close()


def test_errors_end_the_job_failed_with_a_message_for_people_only() -> None:
    registry = JobRegistry(workers=2)

    def bad_input(job: Job) -> None:
        raise BadInputError("Type at least one candidate action.")

    def bug(job: Job) -> None:
        raise RuntimeError("/secret/path leaked")

    told, hidden = (registry.submit("futures", "ann", "F", work) for work in (bad_input, bug))
    assert told.wait(WAIT_S) and hidden.wait(WAIT_S)
    assert told.view().status is JobStatus.FAILED
    assert told.view().message == "Type at least one candidate action."
    assert hidden.view().message == UNEXPECTED
    registry.close()


def test_eta_is_the_rate_so_far_over_what_is_left() -> None:
    clock = Clock()
    job = Job("bench", "Benchmark", "ann", 10, "items", clock)
    assert job._begin()
    assert job.view().eta_s is None  # nothing done: no rate to promise
    clock.now += 20
    job.advance(4)
    view = job.view()
    assert view.elapsed_s == 20
    assert view.eta_s == pytest.approx(30)  # 6 left at 5 s each
    assert "4 of 10 items" in progress_text(view) and "about 30 s left" in progress_text(view)
    tokens = Job("futures", "Sampling", "ann", 400, "tokens", clock)
    tokens._begin()
    clock.now += 10
    tokens.add(100)
    # A token budget is an upper bound: the line says "at most".
    assert "100 of at most 400 tokens" in progress_text(tokens.view())
    assert "at most 30 s left" in progress_text(tokens.view())


def test_a_stage_counts_in_its_own_unit_and_its_eta_is_its_own() -> None:
    clock = Clock()
    job = Job("train", "Training sft", "ann", None, "items", clock)
    assert job._begin()
    job.begin_stage("loading the base model", None, "items")
    clock.now += 30
    assert progress_text(job.view()) == "Training sft · loading the base model: 30 s"
    job.begin_stage("stage 2 of 3, training", 5, "training steps")
    clock.now += 10
    job.advance(2)
    view = job.view()
    assert (view.elapsed_s, view.eta_s) == (40, pytest.approx(15))  # 3 left at 5 s each
    line = progress_text(view)
    assert line.startswith("Training sft · stage 2 of 3, training: 2 of 5 training steps · 40 s")
    assert line.endswith("about 15 s left in this stage")
    job._cancel.set()
    with pytest.raises(JobCancelledError):  # a stage's start is where a cancelled job stops
        job.begin_stage("stage 3 of 3, benchmarking the tuned model", None, "items")


def test_threads_a_job_starts_see_its_cancel_and_count_its_tokens() -> None:
    registry = JobRegistry(workers=1)
    seen: list[str] = []

    def work(job: Job) -> None:
        def request(number: int) -> None:
            count_tokens(5)
            try:
                raise_if_cancelled()
            except JobCancelledError:
                seen.append(f"cancelled {number}")

        job._cancel.set()  # as Cancel does, before the work's own threads look
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(carried(request), range(2)))

    job = registry.submit("battle", "ann", "Battle", work)
    assert job.wait(WAIT_S)
    assert sorted(seen) == ["cancelled 0", "cancelled 1"]
    assert job.view().done == 10
    registry.close()


def test_an_unknown_job_is_a_clear_error() -> None:
    registry = JobRegistry(workers=1)
    with pytest.raises(NotFoundError, match="not known here"):
        registry.get("nope")
    registry.close()


def test_an_unpooled_job_starts_at_once_beside_a_busy_pool() -> None:
    """A Playground step is admitted by fair use, not by the pool: it never waits for a worker."""
    registry = JobRegistry(workers=1)
    started = threading.Event()
    long = registry.submit("bench", "ann", "Benchmark", until_cancelled(started))
    assert started.wait(WAIT_S)
    step = registry.submit("step", "ann", "Step 1", lambda job: "stepped", pooled=False)
    assert step.wait(WAIT_S) and step.result == "stepped"
    assert long.view().status is JobStatus.RUNNING  # the pool's only worker is still busy
    registry.close()
    assert long.view().status is JobStatus.CANCELLED


def test_close_waits_for_work_to_let_go_and_names_what_did_not() -> None:
    registry = JobRegistry(workers=2)
    started, release = threading.Event(), threading.Event()

    def stubborn(job: Job) -> None:  # ignores Cancel until told to stop
        started.set()
        release.wait(WAIT_S)

    stuck = registry.submit("train", "admin", "Training", stubborn)
    assert started.wait(WAIT_S)
    cancelled = registry.submit("futures", "ann", "Sampling", until_cancelled(threading.Event()))
    [left] = registry.close(grace_s=0.5)
    assert left.id == stuck.id and cancelled.view().status is JobStatus.CANCELLED
    assert cancelled.view().message == "The server stopped."
    release.set()
    assert stuck.wait(WAIT_S)  # it let go in the end (what the reaping of its run is for)
