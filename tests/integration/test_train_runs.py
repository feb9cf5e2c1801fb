"""Training runs in SQL (SQLite, and PostgreSQL when a URL is given): started, advanced, ended."""

from __future__ import annotations

import pytest

from backend.errors import NotFoundError
from storage.train_runs import TrainRunStore


def test_a_run_is_started_advanced_and_finished(database) -> None:
    runs = TrainRunStore(database.session_factory)
    run_id = runs.start("sft", "recorded", "/models/base", {"lora": True}, "/runs/a", "admin")
    other = runs.start("dpo", "corrections", "/models/base", {}, "/runs/b")
    runs.progress(run_id, 1, 10, 2.5, None)
    runs.progress(run_id, 2, 10, 2.0, 99.5)
    running = runs.get(run_id)
    assert (running.status, running.step, running.max_steps) == ("running", 2, 10)
    assert running.losses == [(1, 2.5), (2, 2.0)] and running.tokens_per_s == 99.5
    table = {"rows": [{"domain": "terminal", "base": 0.1, "tuned": 0.2}], "macro": {}}
    runs.finish(run_id, "ab" * 32, table, "/runs/a/model", 101.0)
    runs.fail(other, "out of memory")
    finished, failed = runs.get(run_id), runs.get(other)
    assert (finished.status, finished.model_dir, finished.eval_table) == (
        "finished",
        "/runs/a/model",
        table,
    )
    assert finished.hyper_params == {"lora": True} and finished.owner == "admin"
    assert (failed.status, failed.message) == ("failed", "out of memory")
    assert [run.id for run in runs.list_runs()] == [other, run_id]
    with pytest.raises(NotFoundError):
        runs.get(other + 1)
