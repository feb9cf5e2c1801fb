"""`awp bench` end to end on the bundled real trajectories with the two baselines.

Runs are interrupted (by `--limit`, by SIGINT to a real process, by a torn last line) and
resumed; finished items must never be redone and the results must cover every item.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import build_cli
from app.context import build_context
from backend.benchmark.items import load_items
from backend.benchmark.results import aggregate
from backend.benchmark.store import ItemStore
from backend.data.agentworldbench import trajectory_to_rows
from backend.data.bundled import load_bundled
from backend.domains.base import all_domains
from backend.errors import BadInputError
from storage.run_kinds import BenchRun

REPO = Path(__file__).resolve().parents[2]
BASELINES = ["--engine", "persistence", "--engine", "oracle"]


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the run away from the user's data directory and any `.env` of the checkout."""
    monkeypatch.setenv("AWP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)


def bench(*args: str) -> str:
    result = CliRunner().invoke(build_cli(), ["bench", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").split("\n") if line]


def test_limit_then_resume_redoes_nothing_and_scores_everything(tmp_path: Path) -> None:
    out = tmp_path / "run"
    total = len(load_items("bundled"))
    bench(
        "--dataset", "bundled", *BASELINES, "--out", str(out), "--limit", "40", "--concurrency", "7"
    )
    first = lines(out / "items.jsonl")
    assert len(first) == 80

    output = bench("--dataset", "bundled", *BASELINES, "--out", str(out), "--resume")
    rows = lines(out / "items.jsonl")
    assert rows[:80] == first  # appended, never rewritten
    keys = Counter((json.loads(r)["engine"], json.loads(r)["item_id"]) for r in rows)
    assert len(rows) == len(keys) == 2 * total
    assert "Overall macro" in output and "Overall micro" in output

    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    oracle, persistence = results["engines"]["oracle"], results["engines"]["persistence"]
    assert (oracle["items"], oracle["failures"], oracle["finish_reasons"]) == (
        total,
        0,
        {"baseline": total},
    )
    assert oracle["headline_overall"]["macro"] == oracle["headline_overall"]["micro"] == 1.0
    assert "macro" in oracle["headline_overall"]["macro_label"]
    assert set(oracle["domains"]) == {domain.name for domain in all_domains()}
    for stats in oracle["domains"].values():
        assert set(stats["metrics"].values()) == {1.0}
    assert persistence["headline_overall"]["macro"] < 0.05  # doing nothing scores near 0
    assert (out / "per_domain.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "bootstrap 95% interval" in output


def test_results_record_what_reproduces_them(tmp_path: Path) -> None:
    out = tmp_path / "run"
    bench("--dataset", "bundled", "--engine", "oracle", "--out", str(out), "--limit", "20")
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["schema_version"] == 2
    made = results["reproduction"]
    assert made["sampling"]["temperature"] == 0.6 and made["limit"] == 20
    assert made["dataset_items"] == 20 and len(made["dataset_sha256"]) == 64
    assert set(made["packages"]) >= {"python", "torch", "transformers", "agentworld-playground"}
    assert made["git_commit"] is None or len(made["git_commit"]) == 40
    assert made["metric_versions"]["text_delta"] == 2
    assert made["bootstrap"] == {
        "method": "percentile bootstrap",
        "resamples": 2000,
        "seed": 0,
        "confidence": 0.95,
    }
    swe = results["engines"]["oracle"]["domains"]["swe"]
    assert swe["headline_interval"] == [1.0, 1.0]
    again = tmp_path / "again"
    bench("--dataset", "bundled", "--engine", "oracle", "--out", str(again), "--limit", "20")
    second = json.loads((again / "results.json").read_text(encoding="utf-8"))["reproduction"]
    assert second["dataset_sha256"] == made["dataset_sha256"]


OLD_HEADLINES = {"terminal": "screen_similarity", "swe": "text_similarity", "mcp": "json_kv_f1"}


def age(line: str) -> str:
    """A row as the release before the delta headlines wrote it."""
    row = json.loads(line)
    if row["domain"] in OLD_HEADLINES:
        new = {"screen_delta", "text_delta", "json_delta_f1"}
        row["metrics"] = [m for m in row["metrics"] if m["name"] not in new]
        row["headline"] = OLD_HEADLINES[row["domain"]]
        row["headline_value"] = next(
            m["value"] for m in row["metrics"] if m["name"] == row["headline"]
        )
    return json.dumps(row)


def test_a_run_scored_by_older_metrics_still_aggregates_and_is_rescored_on_resume(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    bench("--dataset", "bundled", *BASELINES, "--out", str(out))
    fresh = json.loads((out / "results.json").read_text(encoding="utf-8"))["engines"]
    items_file = out / "items.jsonl"
    aged = [age(line) for line in lines(items_file)]
    items_file.write_text("\n".join(aged) + "\n", encoding="utf-8")

    old = aggregate(ItemStore(items_file).rows(), "bundled", "teacher_forced").engines
    terminal = old["persistence"].domains["terminal"]
    assert terminal.headline == "screen_similarity"
    assert (
        terminal.headline_value
        == fresh["persistence"]["domains"]["terminal"]["metrics"]["screen_similarity"]
    )

    bench("--dataset", "bundled", *BASELINES, "--out", str(out), "--resume")
    assert lines(items_file) == aged  # nothing redone, nothing rewritten
    resumed = json.loads((out / "results.json").read_text(encoding="utf-8"))["engines"]
    for engine, stats in resumed.items():
        for domain, domain_stats in stats["domains"].items():
            expected = fresh[engine]["domains"][domain]
            assert domain_stats["headline"] == expected["headline"]
            assert domain_stats["headline_value"] == expected["headline_value"]
            assert domain_stats["headline_items"] == domain_stats["items"]


def test_persistence_rows_score_zero_change_f1_where_the_state_changed(tmp_path: Path) -> None:
    out = tmp_path / "run"
    bench("--dataset", "bundled", "--engine", "persistence", "--out", str(out))
    items = {item.item_id: item for item in load_items("bundled")}
    checked = 0
    for row in ItemStore(out / "items.jsonl").rows():
        item = items[row.item_id]
        if (
            row.domain in ("web", "os", "android")
            and row.predicted == (item.previous or "").strip()
        ):
            change = next(m for m in row.metrics if m.name == "change_f1")
            changed = change.details["changes_real"] > 0
            assert change.value == (0.0 if changed else 1.0)
            checked += 1
    assert checked >= 10


def test_existing_run_is_not_overwritten_without_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    bench("--dataset", "bundled", "--engine", "oracle", "--out", str(out), "--limit", "3")
    with pytest.raises(BadInputError, match="--resume"):
        CliRunner().invoke(
            build_cli(),
            ["bench", "--dataset", "bundled", "--engine", "oracle", "--out", str(out)],
            catch_exceptions=False,
        )


def test_torn_last_line_is_redone_on_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    bench("--dataset", "bundled", "--engine", "oracle", "--out", str(out), "--limit", "5")
    items_file = out / "items.jsonl"
    kept = lines(items_file)
    torn = kept[-1][: len(kept[-1]) // 2]
    items_file.write_text("\n".join([*kept[:-1], torn]), encoding="utf-8")  # killed mid-write

    bench(
        "--dataset", "bundled", "--engine", "oracle", "--out", str(out), "--limit", "5", "--resume"
    )
    rows = ItemStore(items_file).rows()
    assert len(rows) == 5 and all(row.status == "ok" for row in rows)
    assert lines(items_file)[:4] == kept[:4]


def test_sigint_then_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = [sys.executable, "-m", "app", "bench", "--dataset", "bundled", *BASELINES]
    command += ["--out", str(out), "--concurrency", "1"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(command, cwd=tmp_path, env=env, stderr=subprocess.PIPE)
    items_file = out / "items.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if items_file.is_file() and len(lines(items_file)) >= 20:
            process.send_signal(signal.SIGINT)
            break
        time.sleep(0.02)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr.decode()
    before = lines(items_file)
    assert 20 <= len(before) < 2 * len(load_items("bundled"))  # really cut short

    completed = subprocess.run(
        [*command, "--resume"], cwd=tmp_path, env=env, capture_output=True, check=False
    )
    assert completed.returncode == 0, completed.stderr.decode()
    after = lines(items_file)
    assert after[: len(before)] == before
    keys = {(json.loads(r)["engine"], json.loads(r)["item_id"]) for r in after}
    assert len(keys) == len(after) == 2 * len(load_items("bundled"))
    with build_context() as context:
        (resumed,) = context.runs.list_runs(BenchRun)
    assert resumed.status == "finished" and resumed.message is None
    assert resumed.done == len(keys)


def test_agentworldbench_rows_are_a_dataset(tmp_path: Path) -> None:
    rows = [
        row
        for trajectory in load_bundled()
        if trajectory.domain in ("terminal", "web", "android")
        for row in trajectory_to_rows(trajectory, "You are a world model.")[:3]
    ]
    dataset = tmp_path / "awb.jsonl"
    dataset.write_text("\n".join(json.dumps(row) for row in rows), encoding="utf-8")
    out = tmp_path / "run"
    bench("--dataset", str(dataset), "--engine", "oracle", "--out", str(out))
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))["engines"]["oracle"]
    assert results["items"] == len(rows)
    assert results["headline_overall"]["micro"] == 1.0
