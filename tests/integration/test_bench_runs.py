"""Benchmark runs in SQL on real SQLite and PostgreSQL: what `awp bench` records, migration 0002.

The UI lists past runs from the run store, so what `awp bench` writes there must match its
`results.json`, and a refused run must be recorded too (`test_runs.py` covers every ending).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import inspect
from typer.testing import CliRunner

from app.cli import build_cli
from app.context import build_context
from backend.errors import BadInputError
from storage.db import create_db_engine
from storage.migrate import current_revision, downgrade, upgrade
from storage.run_kinds import BenchRun


def tables(url: str) -> set[str]:
    engine = create_db_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_awp_bench_records_a_finished_run(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AWP_DATABASE_URL", database_url)
    monkeypatch.chdir(tmp_path)
    args = ["bench", "--dataset", "bundled", "--engine", "oracle", "--limit", "5"]
    result = CliRunner().invoke(build_cli(), args, catch_exceptions=False)
    assert result.exit_code == 0, result.output

    with build_context() as context:
        [run] = context.runs.list_runs(BenchRun)
    assert (run.status, run.dataset, run.engines, run.judge) == (
        "finished",
        "bundled",
        ["oracle"],
        None,
    )
    assert (run.done, run.failures) == (5, 0)
    out = Path(run.out_dir)
    assert out.parent == tmp_path / "data" / "bench" and (out / "per_domain.png").is_file()
    assert run.results == json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert run.overall_macro() == {"oracle": 1.0}


def test_awp_bench_records_a_refused_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    args = ["bench", "--dataset", "bundled", "--engine", "oracle", "--limit", "2", "--out", "run"]
    assert CliRunner().invoke(build_cli(), args, catch_exceptions=False).exit_code == 0
    with pytest.raises(BadInputError, match="--resume"):
        CliRunner().invoke(build_cli(), args, catch_exceptions=False)
    with build_context() as context:
        refused, finished = context.runs.list_runs(BenchRun)
    assert (refused.status, finished.status) == ("failed", "finished")
    assert refused.out_dir == finished.out_dir == str(tmp_path / "run")


def test_migration_0002_adds_and_drops_bench_run_and_0009_merges_it(database_url: str) -> None:
    upgrade(database_url, "0001")
    assert "bench_run" not in tables(database_url) and "session" in tables(database_url)
    upgrade(database_url)
    assert "run" in tables(database_url) and "bench_run" not in tables(database_url)
    downgrade(database_url, "0001")
    assert current_revision(database_url) == "0001"
    assert "bench_run" not in tables(database_url) and "session" in tables(database_url)
    upgrade(database_url)
    assert "run" in tables(database_url) and "bench_run" not in tables(database_url)
