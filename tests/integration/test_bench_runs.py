"""Benchmark runs in SQL on real SQLite and PostgreSQL: the store, `awp bench` and migration 0002.

The UI lists past runs from these rows, so what `awp bench` writes here must match its
`results.json` and every way a run ends (finished, failed, interrupted) must be recorded.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import inspect
from typer.testing import CliRunner

from app.cli import build_cli
from backend.benchmark.results import BenchResults, EngineStats, Overall
from backend.errors import BadInputError, NotFoundError
from storage.bench_runs import BenchRunStore, record_bench
from storage.db import Database, create_db_engine
from storage.migrate import current_revision, downgrade, upgrade

SUMMARY = {"engines": {"oracle": {"headline_overall": {"macro": 1.0, "micro": 1.0}}}}


@pytest.fixture
def store(database: Database) -> BenchRunStore:
    return BenchRunStore(database.session_factory)


def results(items: int, failures: int) -> BenchResults:
    stats = EngineStats(model="m", items=items, failures=failures, finish_reasons={}, domains={},
                        headline_overall=Overall(macro=0.5, micro=0.25))  # fmt: skip
    return BenchResults(dataset="bundled", history_mode="blind", engines={"a": stats, "b": stats})


def tables(url: str) -> set[str]:
    engine = create_db_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_start_then_finish(store: BenchRunStore) -> None:
    run_id = store.start("bundled", ["oracle", "persistence"], "openai", "/tmp/out", owner="ada")
    started = store.get(run_id)
    assert (started.status, started.summary, started.item_count) == ("running", {}, 0)
    assert started.engines == ["oracle", "persistence"] and started.owner == "ada"
    assert started.created_at.tzinfo is not None

    store.finish(run_id, SUMMARY, item_count=10, failure_count=1)
    done = store.get(run_id)
    assert (done.status, done.item_count, done.failure_count) == ("finished", 10, 1)
    assert done.summary == SUMMARY and done.overall_macro() == {"oracle": 1.0}
    assert done.updated_at >= started.updated_at


def test_list_is_newest_first_and_limited(store: BenchRunStore) -> None:
    ids = [store.start(f"set{n}", ["oracle"], None, f"/tmp/{n}") for n in range(3)]
    assert [run.id for run in store.list_runs()] == ids[::-1]
    assert [run.dataset for run in store.list_runs(limit=2)] == ["set2", "set1"]


def test_resume_reopens_the_run_of_the_same_folder(store: BenchRunStore) -> None:
    first = store.start("bundled", ["oracle"], None, "/tmp/out")
    store.fail(first, "interrupted", "Ctrl-C")
    other = store.start("bundled", ["oracle"], None, "/tmp/other")

    again = store.start("bundled", ["oracle", "persistence"], None, "/tmp/out", resume=True)

    assert again == first
    reopened = store.get(first)
    assert (reopened.status, reopened.message) == ("running", None)
    assert reopened.engines == ["oracle", "persistence"]
    assert [run.id for run in store.list_runs()] == [other, first]
    assert store.start("bundled", ["oracle"], None, "/tmp/new", resume=True) not in (first, other)


def test_fail_records_why_and_refuses_other_statuses(store: BenchRunStore) -> None:
    run_id = store.start("bundled", ["oracle"], None, "/tmp/out")
    store.fail(run_id, "interrupted", "Ctrl-C")
    assert (store.get(run_id).status, store.get(run_id).message) == ("interrupted", "Ctrl-C")
    with pytest.raises(BadInputError, match="failed or interrupted"):
        store.fail(run_id, "finished", "no")
    with pytest.raises(BadInputError, match="valid: running, finished"):
        store.finish(run_id, {}, 0, 0, status="done")
    with pytest.raises(NotFoundError):
        store.get(run_id + 1)


def test_record_bench_stores_each_outcome(store: BenchRunStore) -> None:
    where = {"dataset": "bundled", "engines": ["a", "b"], "judge": None, "out_dir": "/tmp/o"}
    seen: list[int] = []

    def finished_run(run_id: int) -> BenchResults:
        seen.append(run_id)
        return results(4, 1)

    assert record_bench(store, finished_run, **where).engines["a"].items == 4
    assert seen == [store.list_runs()[0].id]  # the run learns its stored id

    def interrupted(run_id: int) -> BenchResults:
        raise KeyboardInterrupt

    def refused(run_id: int) -> BenchResults:
        raise BadInputError("/tmp/o already holds a benchmark run")

    def broken(run_id: int) -> BenchResults:
        raise RuntimeError("secret internals")

    for run, error in ((interrupted, KeyboardInterrupt), (refused, BadInputError),
                       (broken, RuntimeError)):  # fmt: skip
        with pytest.raises(error):
            record_bench(store, run, **where)
    broke, refusal, stopped, finished = store.list_runs()
    assert (finished.status, finished.item_count, finished.failure_count) == ("finished", 8, 2)
    assert finished.summary["engines"]["b"]["headline_overall"]["micro"] == 0.25
    assert stopped.status == "interrupted" and "--resume --out /tmp/o" in (stopped.message or "")
    assert (refusal.status, refusal.message) == ("failed", "/tmp/o already holds a benchmark run")
    assert broke.status == "failed" and "secret" not in (broke.message or "")


def test_awp_bench_records_a_finished_run(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AWP_DATABASE_URL", database_url)
    monkeypatch.chdir(tmp_path)
    args = ["bench", "--dataset", "bundled", "--engine", "oracle", "--limit", "5"]
    result = CliRunner().invoke(build_cli(), args, catch_exceptions=False)
    assert result.exit_code == 0, result.output

    database = Database(database_url)
    try:
        [run] = BenchRunStore(database.session_factory).list_runs()
    finally:
        database.dispose()
    assert (run.status, run.dataset, run.engines, run.judge) == (
        "finished",
        "bundled",
        ["oracle"],
        None,
    )
    assert (run.item_count, run.failure_count) == (5, 0)
    out = Path(run.out_dir)
    assert out.parent == tmp_path / "data" / "bench" and (out / "per_domain.png").is_file()
    assert run.summary == json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert run.overall_macro() == {"oracle": 1.0}


def test_awp_bench_records_a_refused_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    args = ["bench", "--dataset", "bundled", "--engine", "oracle", "--limit", "2", "--out", "run"]
    assert CliRunner().invoke(build_cli(), args, catch_exceptions=False).exit_code == 0
    with pytest.raises(BadInputError, match="--resume"):
        CliRunner().invoke(build_cli(), args, catch_exceptions=False)
    database = Database(f"sqlite:///{tmp_path / 'data' / 'awp.db'}")
    try:
        refused, finished = BenchRunStore(database.session_factory).list_runs()
    finally:
        database.dispose()
    assert (refused.status, finished.status) == ("failed", "finished")
    assert refused.out_dir == finished.out_dir == str(tmp_path / "run")


def test_migration_0002_adds_and_drops_bench_run(database_url: str) -> None:
    upgrade(database_url, "0001")
    assert "bench_run" not in tables(database_url) and "session" in tables(database_url)
    upgrade(database_url, "0002")
    assert "bench_run" in tables(database_url)
    downgrade(database_url, "0001")
    assert current_revision(database_url) == "0001"
    assert "bench_run" not in tables(database_url) and "session" in tables(database_url)
    upgrade(database_url)
    assert "bench_run" in tables(database_url)
