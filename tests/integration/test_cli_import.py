"""`awp import` stores trajectories in a real SQLite database and reports counts per domain."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from typer.testing import CliRunner

from app.cli import build_cli
from app.context import AppContext
from app.settings import Settings
from backend.data.agentworldbench import trajectory_to_rows
from backend.data.bundled import load_bundled
from storage.trajectories import UPSERT_BATCH


@pytest.fixture
def settings(data_dir, monkeypatch) -> Settings:
    monkeypatch.setenv("AWP_DATA_DIR", str(data_dir))
    return Settings()


def stored_counts(settings: Settings) -> dict[str, int]:
    context = AppContext(settings)
    try:
        return context.trajectories.counts_by_domain()
    finally:
        context.close()


def test_import_recorded_stores_the_bundled_set(settings):
    result = CliRunner().invoke(build_cli(), ["import", "recorded"])

    assert result.exit_code == 0, result.output
    expected = Counter(t.domain for t in load_bundled())
    assert stored_counts(settings) == dict(expected)
    assert f"{sum(expected.values())} trajectories stored" in result.output


def test_import_agentworldbench_rows_reports_rows_and_trajectories(settings, tmp_path):
    trajectories = [t for t in load_bundled() if t.domain in {"terminal", "web"}][:3]
    rows = [row for t in trajectories for row in trajectory_to_rows(t, "prompt")]
    rows.append(dict(rows[0]))  # a duplicate (id, turn_idx), as the official android file has
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")

    result = CliRunner().invoke(build_cli(), ["import", "agentworldbench", str(path)])

    assert result.exit_code == 0, result.output
    assert f"Imported {len(rows) - 1} rows" in result.output
    assert "Skipped 1 duplicate rows" in result.output
    assert stored_counts(settings) == dict(Counter(t.domain for t in trajectories))


def test_a_malformed_row_is_refused_with_its_line(settings, tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"task": "web"}\n', encoding="utf-8")

    result = CliRunner().invoke(build_cli(), ["import", "agentworldbench", str(path)])

    assert result.exit_code != 0
    assert "rows.jsonl" in str(result.exception)
    assert stored_counts(settings) == {}


def test_deeply_nested_json_is_refused_with_its_line(settings, tmp_path):
    path = tmp_path / "rows.jsonl"
    good = trajectory_to_rows(load_bundled()[0], "prompt", [1])[0]
    path.write_text(json.dumps(good) + "\n" + "[" * 50_000 + "]" * 50_000 + "\n", "utf-8")

    result = CliRunner().invoke(build_cli(), ["import", "agentworldbench", str(path)])

    assert result.exit_code != 0
    assert f"{path}:2: the JSON is nested too deeply to read" == str(result.exception)
    assert stored_counts(settings) == {}


def test_a_bad_row_after_many_batches_stores_nothing(settings, tmp_path):
    first = next(t for t in load_bundled() if t.turns[0].observation is not None)
    copies = [first.model_copy(update={"id": f"{first.id}~{i}"}) for i in range(2 * UPSERT_BATCH)]
    rows = [trajectory_to_rows(t, "prompt", [1])[0] for t in copies]
    path = tmp_path / "rows.jsonl"
    lines = [json.dumps(row) for row in rows] + ['{"task": "web"}']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    result = CliRunner().invoke(build_cli(), ["import", "agentworldbench", str(path)])

    assert str(result.exception).startswith(f"{path}:{len(lines)}: ")
    assert stored_counts(settings) == {}
    path.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    result = CliRunner().invoke(build_cli(), ["import", "agentworldbench", str(path)])
    assert result.exit_code == 0, result.output
    assert stored_counts(settings) == {first.domain: len(copies)}
