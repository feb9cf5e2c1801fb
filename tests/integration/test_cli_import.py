"""`awp import` stores trajectories in a real SQLite database and reports counts per domain."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from app.cli import build_cli
from app.context import AppContext
from backend.data.agentworldbench import trajectory_to_rows
from backend.data.bundled import load_bundled
from storage.trajectories import UPSERT_BATCH


def test_import_recorded_stores_the_bundled_set(awp_context: AppContext) -> None:
    result = CliRunner().invoke(build_cli(), ["import", "recorded"])

    assert result.exit_code == 0, result.output
    expected = Counter(t.domain for t in load_bundled())
    assert awp_context.trajectories.counts_by_domain() == dict(expected)
    assert f"{sum(expected.values())} trajectories stored" in result.output


def test_import_agentworldbench_rows_reports_rows_and_trajectories(
    awp_context: AppContext, tmp_path: Path
) -> None:
    trajectories = [t for t in load_bundled() if t.domain in {"terminal", "web"}][:3]
    rows = [row for t in trajectories for row in trajectory_to_rows(t, "prompt")]
    rows.append(dict(rows[0]))  # a duplicate (id, turn_idx), as the official android file has
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")

    result = CliRunner().invoke(build_cli(), ["import", "agentworldbench", str(path)])

    assert result.exit_code == 0, result.output
    assert f"Imported {len(rows) - 1} rows" in result.output
    assert "Skipped 1 duplicate rows" in result.output
    expected = Counter(t.domain for t in trajectories)
    assert awp_context.trajectories.counts_by_domain() == dict(expected)


def test_a_malformed_row_is_refused_with_its_line(awp_context: AppContext, tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"task": "web"}\n', encoding="utf-8")

    result = CliRunner().invoke(build_cli(), ["import", "agentworldbench", str(path)])

    assert result.exit_code != 0
    assert "rows.jsonl" in str(result.exception)
    assert awp_context.trajectories.counts_by_domain() == {}


def test_deeply_nested_json_is_refused_with_its_line(
    awp_context: AppContext, tmp_path: Path
) -> None:
    path = tmp_path / "rows.jsonl"
    good = trajectory_to_rows(load_bundled()[0], "prompt", [1])[0]
    path.write_text(json.dumps(good) + "\n" + "[" * 50_000 + "]" * 50_000 + "\n", "utf-8")

    result = CliRunner().invoke(build_cli(), ["import", "agentworldbench", str(path)])

    assert result.exit_code != 0
    assert f"{path}:2: the JSON is nested too deeply to read" == str(result.exception)
    assert awp_context.trajectories.counts_by_domain() == {}


def test_a_bad_row_after_many_batches_stores_nothing(
    awp_context: AppContext, tmp_path: Path
) -> None:
    first = next(t for t in load_bundled() if t.turns[0].observation is not None)
    copies = [first.model_copy(update={"id": f"{first.id}~{i}"}) for i in range(2 * UPSERT_BATCH)]
    rows = [trajectory_to_rows(t, "prompt", [1])[0] for t in copies]
    path = tmp_path / "rows.jsonl"
    lines = [json.dumps(row) for row in rows] + ['{"task": "web"}']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    result = CliRunner().invoke(build_cli(), ["import", "agentworldbench", str(path)])

    assert str(result.exception).startswith(f"{path}:{len(lines)}: ")
    assert awp_context.trajectories.counts_by_domain() == {}
    path.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    result = CliRunner().invoke(build_cli(), ["import", "agentworldbench", str(path)])
    assert result.exit_code == 0, result.output
    assert awp_context.trajectories.counts_by_domain() == {first.domain: len(copies)}
