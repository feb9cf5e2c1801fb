"""The one run store on real SQLite and PostgreSQL: every kind's lifecycle and migration 0009.

Benchmark, training and rollout runs share `RunStore` and `recorded`, so each way a run ends
(finished, failed, interrupted, cancelled from a page) must read the same for every kind, and
the text of an arbitrary exception must never reach the stored message that pages show.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from backend.errors import BadInputError, JobCancelledError, NotFoundError
from backend.jobs import Job, JobRegistry
from storage.db import Database, create_db_engine
from storage.migrate import downgrade, upgrade
from storage.models import RunStatus
from storage.run_kinds import BenchRun, RolloutRun, TrainRun
from storage.run_lifecycle import CANCELLED, UNEXPECTED, recorded
from storage.runs import RunRecord, RunStore
from ui.pages.job_panel import line_html
from ui.rollouts import past_row
from ui.training import run_report

KINDS: list[type[RunRecord]] = [BenchRun, TrainRun, RolloutRun]
SPECS = {
    BenchRun: BenchRun.new_spec("bundled", ["oracle", "persistence"], None),
    TrainRun: TrainRun.new_spec("sft", "recorded", "/models/base", {"lora": True}),
    RolloutRun: RolloutRun.new_spec(
        ["terminal"], "replay", "oracle:", "sim", 2, "reference", "bundled", 5
    ),
}


@pytest.fixture
def store(database: Database) -> RunStore:
    return RunStore(database.session_factory)


def test_a_training_run_is_started_advanced_and_finished(store: RunStore) -> None:
    run_id = store.start(TrainRun, SPECS[TrainRun], "/runs/a", "admin")
    with pytest.raises(NotFoundError, match="Benchmark run"):
        store.get(BenchRun, run_id)  # a run is read as its own kind only
    store.progress(run_id, 1, 10, {"loss": 2.5})
    store.progress(run_id, 2, 10, {"loss": 2.0, "tokens_per_s": 99.5})
    running = store.get(TrainRun, run_id)
    assert (running.status, running.done, running.total) == ("running", 2, 10)
    assert running.losses == [(1, 2.5), (2, 2.0)] and running.tokens_per_s == 99.5
    table = {"rows": [{"domain": "terminal", "base": 0.1, "tuned": 0.2}], "macro": {}}
    store.finish(run_id, TrainRun.new_results("ab" * 32, table, "/runs/a/model", 101.0))
    finished = store.get(TrainRun, run_id)
    assert (finished.status, finished.model_dir, finished.eval_table) == (
        "finished",
        "/runs/a/model",
        table,
    )
    assert finished.tokens_per_s == 101.0 and finished.done == 2
    assert finished.hyper_params == {"lora": True} and finished.owner == "admin"
    assert finished.created_at.tzinfo is not None


def test_listing_is_per_kind_newest_first_and_limited(store: RunStore) -> None:
    benches = [store.start(BenchRun, BenchRun.new_spec(f"set{n}", ["a"], None)) for n in range(3)]
    rollout = store.start(RolloutRun, SPECS[RolloutRun])
    assert [run.id for run in store.list_runs(BenchRun)] == benches[::-1]
    assert [run.dataset for run in store.list_runs(BenchRun, limit=2)] == ["set2", "set1"]
    assert [run.id for run in store.list_runs(RolloutRun)] == [rollout]
    assert store.list_runs(TrainRun) == []


def test_resume_reopens_the_run_of_the_same_folder_and_kind(store: RunStore) -> None:
    first = store.start(BenchRun, SPECS[BenchRun], "/tmp/out")
    store.end(first, RunStatus.INTERRUPTED, "Ctrl-C")
    other = store.start(BenchRun, SPECS[BenchRun], "/tmp/other")
    training = store.start(TrainRun, SPECS[TrainRun], "/tmp/out")

    again = store.start(BenchRun, BenchRun.new_spec("bundled", ["b"], "j"), "/tmp/out", resume=True)

    assert again == first
    reopened = store.get(BenchRun, first)
    assert (reopened.status, reopened.message, reopened.engines) == ("running", None, ["b"])
    assert [run.id for run in store.list_runs(BenchRun)] == [other, first]
    assert store.get(TrainRun, training).status == "running"
    with pytest.raises(BadInputError, match="failed or interrupted"):
        store.end(first, RunStatus.FINISHED, "no")
    with pytest.raises(NotFoundError):
        store.progress(training + 1, 1, 1)


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.kind.value)
def test_every_kind_ends_the_same_way(kind: type[RunRecord], store: RunStore) -> None:
    with recorded(store, kind, SPECS[kind], out_dir="/tmp/o") as run:
        run.progress(3, 4)
        run.conclude({"answer": 42}, done=4, failures=1)
    errors = (
        KeyboardInterrupt(),
        JobCancelledError("Cancelled."),
        BadInputError("The dataset has no item 7."),
        RuntimeError("x"),
    )
    for error in errors:
        with pytest.raises(type(error)), recorded(store, kind, SPECS[kind], out_dir="/tmp/o"):
            raise error
    broke, refused, cancelled, stopped, finished = store.list_runs(kind)
    assert (finished.status, finished.done, finished.failures) == ("finished", 4, 1)
    assert finished.results == {"answer": 42} and finished.spec == SPECS[kind]
    assert stopped.status == "interrupted" and stopped.message == kind.interrupted_message("/tmp/o")
    # Cancel is no failure: the run reads interrupted, saying it was cancelled (and how to resume).
    assert cancelled.status == "interrupted"
    assert cancelled.message == kind.interrupted_message("/tmp/o", CANCELLED)
    assert cancelled.message.startswith("Cancelled")
    assert (refused.status, refused.message) == ("failed", "The dataset has no item 7.")
    assert (broke.status, broke.message) == ("failed", UNEXPECTED)


def test_a_run_finished_without_progress_reads_all_of_its_units_done(store: RunStore) -> None:
    with recorded(store, BenchRun, SPECS[BenchRun]) as run:
        run.conclude({"answer": 42}, done=40)
    (finished,) = store.list_runs(BenchRun)
    assert (finished.done, finished.total) == (40, 40)  # the Runs page once read "40 of ?"


def test_an_arbitrary_error_is_logged_never_stored_or_shown(
    store: RunStore, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "postgresql://admin:hunter2@db/awp"
    with (
        caplog.at_level(logging.ERROR, logger="storage.run_lifecycle"),
        pytest.raises(OSError, match="hunter2"),
        recorded(store, TrainRun, SPECS[TrainRun], out_dir="/runs/a") as run,
    ):
        run.progress(1, 5, loss=3.0)
        raise OSError(f"cannot reach {secret}")
    [failed] = store.list_runs(TrainRun)
    assert failed.status == "failed" and "hunter2" not in (failed.message or "")
    assert "hunter2" not in run_report(failed) and UNEXPECTED in run_report(failed)
    assert failed.losses == [(1, 3.0)]  # progress made before the failure stays
    assert "hunter2" in caplog.text and "Traceback" in caplog.text  # the log keeps the cause


def test_an_interrupted_rollout_reads_interrupted_on_its_page(store: RunStore) -> None:
    with pytest.raises(KeyboardInterrupt), recorded(store, RolloutRun, SPECS[RolloutRun]) as run:
        run.progress(1, 2)
        raise KeyboardInterrupt
    [stopped] = store.list_runs(RolloutRun)
    assert past_row(stopped)[-2:] == ["interrupted", "1/2"]


def test_a_database_that_fails_at_the_end_does_not_hide_why_the_run_ended(
    database: Database, store: RunStore
) -> None:
    with pytest.raises(KeyboardInterrupt), recorded(store, RolloutRun, SPECS[RolloutRun]):
        with database.engine.begin() as connection:
            connection.execute(sa.text("ALTER TABLE run RENAME TO run_gone"))
        raise KeyboardInterrupt  # recording `interrupted` fails: the table is gone
    with database.engine.begin() as connection:
        connection.execute(sa.text("ALTER TABLE run_gone RENAME TO run"))
    [left] = store.list_runs(RolloutRun)
    assert left.status == "running"  # as a killed run reads; Ctrl-C still reached the caller


def test_bench_interrupted_message_says_how_to_resume() -> None:
    assert "awp bench --resume --out /tmp/o" in BenchRun.interrupted_message("/tmp/o")


def test_train_interrupted_message_says_how_to_resume() -> None:
    message = TrainRun.interrupted_message("/tmp/o", CANCELLED)
    assert message.startswith("Cancelled; `awp train --resume --out /tmp/o`")


def test_a_run_recorded_inside_a_job_names_its_run_in_the_job(store: RunStore) -> None:
    registry = JobRegistry(workers=1)

    def work(job: Job) -> int:
        with recorded(store, TrainRun, SPECS[TrainRun], out_dir="/tmp/o") as run:
            run.conclude({})
        return run.id

    job = registry.submit("train", "ann", "Training", work)
    assert job.wait(30)
    assert job.view().run_id == job.result  # the line links to it: `?run=<id>`
    assert f'href="?run={job.result}"' in line_html(job.view())
    registry.close()


def _stamp() -> datetime:
    return datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_migration_0009_moves_bench_and_train_runs_into_run(database_url: str) -> None:
    upgrade(database_url, "0008")
    engine = create_db_engine(database_url)
    meta = sa.MetaData()
    meta.reflect(engine, only=["bench_run", "train_run", "session", "trajectory"])
    bench, train, session = (
        meta.tables["bench_run"],
        meta.tables["train_run"],
        meta.tables["session"],
    )
    when = {"created_at": _stamp(), "updated_at": _stamp()}
    summary = {"engines": {"oracle": {"headline_overall": {"macro": 0.75, "micro": 0.5}}}}
    with engine.begin() as connection:
        connection.execute(
            sa.insert(bench),
            [
                {
                    "id": 3,
                    "dataset": "bundled",
                    "engines": ["oracle"],
                    "judge": None,
                    "out_dir": "/bench/a",
                    "status": "finished",
                    "message": None,
                    "item_count": 8,
                    "failure_count": 1,
                    "summary": summary,
                    "owner": "ada",
                    **when,
                },
                {
                    "id": 7,
                    "dataset": "rows.jsonl",
                    "engines": ["a", "b"],
                    "judge": "openai",
                    "out_dir": "/bench/b",
                    "status": "interrupted",
                    "message": "Interrupted.",
                    "item_count": 0,
                    "failure_count": 0,
                    "summary": {},
                    "owner": None,
                    **when,
                },
            ],
        )
        connection.execute(
            sa.insert(train),
            {
                "id": 1,
                "method": "sft",
                "data_source": "recorded",
                "data_hash": "ab" * 32,
                "base_model": "/models/base",
                "hyper_params": {"lora": True},
                "out_dir": "/train/a",
                "status": "finished",
                "message": None,
                "step": 4,
                "max_steps": 4,
                "tokens_per_s": 12.5,
                "losses": [[2, 1.5], [4, 1.25]],
                "eval_table": {"rows": []},
                "model_dir": "/train/a/model",
                "owner": "admin",
                **when,
            },
        )
        connection.execute(
            sa.insert(session),
            {
                "id": 1,
                "engine": "oracle",
                "model": "m",
                "domain": "terminal",
                "history_mode": "teacher_forced",
                "params": {},
                "task": "",
                "kind": "bench",
                "bench_run_id": 7,
                **when,
            },
        )
    engine.dispose()

    upgrade(database_url)

    database = Database(database_url)
    try:
        store = RunStore(database.session_factory)
        newer, older = store.list_runs(BenchRun)
        [trained] = store.list_runs(TrainRun)
        with database.session_factory() as db_session:
            linked = db_session.execute(sa.text("SELECT bench_run_id FROM session")).scalar_one()
        fresh = store.start(RolloutRun, SPECS[RolloutRun])
    finally:
        database.dispose()
    assert (older.id, older.status, older.done, older.failures, older.owner) == (
        3,
        "finished",
        8,
        1,
        "ada",
    )
    assert older.overall_macro() == {"oracle": 0.75} and older.created_at == _stamp()
    assert (newer.id, newer.status, newer.engines, newer.judge) == (
        7,
        "interrupted",
        ["a", "b"],
        "openai",
    )
    assert linked == 7  # benchmark runs keep their ids, so sessions still name theirs
    assert trained.id == 8 and (trained.method, trained.done, trained.total) == ("sft", 4, 4)
    assert trained.losses == [(2, 1.5), (4, 1.25)] and trained.tokens_per_s == 12.5
    assert trained.model_dir == "/train/a/model" and trained.hyper_params == {"lora": True}
    assert fresh == 9  # new runs are numbered after the moved ones (PostgreSQL's sequence too)
    engine = create_db_engine(database_url)
    tables = set(sa.inspect(engine).get_table_names())
    engine.dispose()
    assert "run" in tables and not {"bench_run", "train_run"} & tables

    downgrade(database_url, "0008")  # back: benchmark and training runs return to their tables

    engine = create_db_engine(database_url)
    with engine.connect() as connection:
        benches = connection.execute(sa.text("SELECT id, status FROM bench_run ORDER BY id")).all()
        trains = connection.execute(sa.text("SELECT id, step, losses FROM train_run")).all()
        linked = connection.execute(sa.text("SELECT bench_run_id FROM session")).scalar_one()
    engine.dispose()
    assert [tuple(row) for row in benches] == [(3, "finished"), (7, "interrupted")]
    [(train_id, step, losses)] = trains
    assert (train_id, step, linked) == (8, 4, 7)
    assert (json.loads(losses) if isinstance(losses, str) else losses) == [[2, 1.5], [4, 1.25]]
