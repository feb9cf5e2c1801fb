"""Closing the app during a run: the job lets go before the engines and the database close.

A training run cancelled by shutdown saves a checkpoint first (more writes to its run record),
then stops; the composition root must wait for that before it disposes of the database, so the
run reads `interrupted` with the reason, never "could not be marked".
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest

from app.context import build_context
from backend.jobs import Job, JobStatus, raise_if_cancelled
from storage.models import RunStatus
from storage.run_kinds import TrainRun
from storage.run_lifecycle import recorded

WAIT_S = 30
SPEC = TrainRun.new_spec("sft", "recorded", "/models/base", {"lora": True})


def test_closing_the_context_marks_a_running_training_run_interrupted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    context = build_context(data_dir=tmp_path, engine="persistence")
    started = threading.Event()

    def train(job: Job) -> None:
        with recorded(context.runs, TrainRun, SPEC, out_dir=str(tmp_path / "run")) as run:
            started.set()
            step = 0
            while not job.cancelled:
                step += 1
                run.progress(step, 1000)
                job._cancel.wait(0.01)
            run.progress(step + 1, 1000)  # the checkpoint a cancelled training run saves
            raise_if_cancelled()

    job = context.jobs.submit("train", "admin", "Training", train, unit="items")
    assert started.wait(WAIT_S)
    with caplog.at_level(logging.WARNING):
        context.close()
    assert "could not be marked" not in caplog.text
    assert "still running at shutdown" not in caplog.text
    view = job.view()
    assert view.status is JobStatus.CANCELLED and view.message == "The server stopped."
    with build_context(data_dir=tmp_path, engine="persistence") as again:
        [run] = again.runs.list_runs(TrainRun)
    assert run.status == RunStatus.INTERRUPTED.value
    assert run.message is not None and run.message.startswith("The server stopped; `awp train")
    assert run.done is not None and run.done >= 2  # the checkpoint's write after Cancel landed
