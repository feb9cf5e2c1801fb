"""AgentWorldBench rows: built from recorded trajectories, written as JSONL, Parquet and a
datasets folder, imported back; history/truth split, quirks, bad rows and the offline hub."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backend.data.agentworldbench import (
    load_agentworldbench,
    parse_row,
    trajectory_to_rows,
)
from backend.data.awb_import import AgentWorldBenchScan
from backend.data.awb_layout import observation_text, parse_user_turn
from backend.data.bundled import load_bundled
from backend.data.rows import read_rows
from backend.domains.turns import format_assistant_turn, format_user_turn
from backend.errors import BadInputError
from backend.types import Trajectory, Turn

REPO = Path(__file__).resolve().parents[2]
SYSTEM = "# Role and Objective\n\nYou are a world model."


@pytest.fixture(scope="module")
def samples() -> list[Trajectory]:
    """One recorded trajectory per domain, at most four turns each, ids made unique per domain."""
    chosen: dict[str, Trajectory] = {}
    for t in load_bundled():
        chosen.setdefault(t.domain, t.model_copy(update={"turns": t.turns[:4]}))
    return list(chosen.values())


@pytest.fixture(scope="module")
def rows(samples: list[Trajectory]) -> list[dict[str, Any]]:
    return [row for t in samples for row in trajectory_to_rows(t, SYSTEM)]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def write_parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def write_datasets_folder(path: Path, rows: list[dict[str, Any]]) -> Path:
    import datasets

    datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)}).save_to_disk(str(path))
    return path


WRITERS = {
    "rows.jsonl": write_jsonl,
    "rows.parquet": write_parquet,
    "hf_folder": write_datasets_folder,
}


def same_turns(a: Trajectory, b: Trajectory) -> bool:
    return (a.id, a.domain, a.initial_state, a.turns) == (b.id, b.domain, b.initial_state, b.turns)


# --- round trips ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", WRITERS)
def test_rows_round_trip_through_every_format(
    name: str, tmp_path: Path, samples: list[Trajectory], rows: list[dict[str, Any]]
) -> None:
    imported = load_agentworldbench(WRITERS[name](tmp_path / name, rows))
    assert len(imported.items) == len(rows) and imported.duplicates == []
    back = {t.id: t for t in imported.trajectories()}
    assert {t.domain for t in back.values()} == {t.domain for t in samples}
    for original in samples:
        assert same_turns(back[original.id], original)
        assert back[original.id].system_prompt == SYSTEM


@pytest.mark.parametrize("name", WRITERS)
def test_the_streaming_import_builds_the_same_trajectories(
    name: str, tmp_path: Path, rows: list[dict[str, Any]]
) -> None:
    shuffled = rows[1::2] + rows[::2] + [rows[-1]]  # a trajectory's rows apart, one repeated
    path = WRITERS[name](tmp_path / name, shuffled)

    scan = AgentWorldBenchScan(path)

    in_memory = load_agentworldbench(path)
    assert scan.duplicates == in_memory.duplicates and len(scan.duplicates) == 1
    assert sum(scan.rows.values()) == len(in_memory.items) == len(rows)
    streamed = sorted(scan.trajectories(), key=lambda t: t.id)
    assert streamed == sorted(in_memory.trajectories(), key=lambda t: t.id)
    assert len(scan) == len(streamed)
    assert scan.trajectory_counts() == Counter(t.domain for t in streamed)


def test_history_and_ground_truth_follow_turn_idx(
    tmp_path: Path, samples: list[Trajectory], rows: list[dict[str, Any]]
) -> None:
    originals = {t.id: t for t in samples}
    for item in load_agentworldbench(write_jsonl(tmp_path / "r.jsonl", rows)).items:
        turns = originals[item.id].turns
        assert item.history == turns[: item.turn_idx - 1]
        assert item.action == turns[item.turn_idx - 1].action
        assert item.ground_truth == str(turns[item.turn_idx - 1].observation).strip()
        assert item.total_turns == len(turns)
        request = item.to_request()
        assert (request.reference, request.history) == (item.ground_truth, item.history)


def test_folder_of_domain_files_is_read(tmp_path: Path, rows: list[dict[str, Any]]) -> None:
    folder = tmp_path / "snapshot"
    folder.mkdir()
    for domain in ("terminal", "web"):
        write_jsonl(folder / f"{domain}_test.jsonl", [r for r in rows if r["task"] == domain])
    imported = load_agentworldbench(folder)
    assert {item.domain for item in imported.items} == {"terminal", "web"}


def test_terminal_initial_state_rides_in_the_first_turn() -> None:
    t = Trajectory(
        id="t1",
        domain="terminal",
        initial_state="user@host:~$ ",
        turns=[Turn(action='[{"keystrokes": "ls\\n", "duration": 0.1}]', observation="a  b")],
        source="test",
        licence="MIT",
    )
    (row,) = trajectory_to_rows(t, SYSTEM)
    assert row["current_prompt"].startswith("### Turn 1\n**Current State:**\nuser@host:~$ \n\n")
    item = parse_row(row, "here")
    assert (item.initial_state, item.history, item.ground_truth) == ("user@host:~$ ", [], "a  b")


# --- quirks of the official data ------------------------------------------------------------


FIRST_TURN = '### Turn 1\n**Action:**\n```json\n{"name": "list", "arguments": {}}\n```'


def official_row(**changes: Any) -> dict[str, Any]:
    row = {
        "task": "mcp",
        "id": 145256090131919,
        "prompt": [FIRST_TURN],
        "response": ["**Environment Observation:**\n[]"],
        "current_prompt": FIRST_TURN,
        "system_str": SYSTEM,
        "turn_idx": 1,
        "total_turns": 5,
    }
    return row | changes


def test_official_row_layout_is_parsed() -> None:
    item = parse_row(official_row(), "x")
    assert (item.id, item.domain, item.action, item.ground_truth) == (
        "145256090131919",
        "mcp",
        '{"name": "list", "arguments": {}}',
        "[]",
    )


def test_namespaced_task_keeps_the_last_part() -> None:
    assert parse_row(official_row(task="Qwen/AgentWorldBench/mcp"), "x").domain == "mcp"


def test_duplicate_id_and_turn_is_counted_and_skipped(
    tmp_path: Path, rows: list[dict[str, Any]]
) -> None:
    path = write_jsonl(tmp_path / "dup.jsonl", [*rows, rows[0]])
    imported = load_agentworldbench(path)
    assert len(imported.items) == len(rows)
    assert imported.duplicates == [f"{path}:{len(rows) + 1}"]


def test_u2028_inside_text_does_not_split_a_row(tmp_path: Path) -> None:
    observation = "result one\u2028still result one\u2029and\x85this"
    row = official_row(response=[format_assistant_turn(observation)])
    path = write_jsonl(tmp_path / "search.jsonl", [row, official_row(id=2)])
    assert len(path.read_text("utf-8").splitlines()) > 2  # what str.splitlines would do
    items = load_agentworldbench(path).items
    assert [item.ground_truth for item in items] == [observation, "[]"]


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("{not json", "not valid JSON"),
        (json.dumps(official_row(turn_idx=2)), "turn_idx 2 is past"),
        (json.dumps({k: v for k, v in official_row().items() if k != "system_str"}), "system_str"),
        (json.dumps(official_row(task="ns/chess")), "unknown domain 'chess'"),
        (json.dumps(official_row(prompt=["Turn 1: ls"], current_prompt=None)), "not a user turn"),
        (json.dumps(official_row(turn_idx=0)), "turn_idx"),
    ],
)
def test_malformed_row_names_file_and_line(tmp_path: Path, bad: str, message: str) -> None:
    good = json.dumps(official_row())
    path = tmp_path / "bad.jsonl"
    path.write_text(f"{good}\n\n{good.replace('145256090131919', '7')}\n{bad}\n", "utf-8")
    with pytest.raises(BadInputError, match=message) as info:
        load_agentworldbench(path)
    assert str(info.value).startswith(f"{path}:4: ")


def test_deeply_nested_json_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps(official_row()) + "\n" + "[" * 100_000 + "]" * 100_000 + "\n")

    with pytest.raises(BadInputError, match=r"deep\.jsonl:2: the JSON is nested too deeply"):
        AgentWorldBenchScan(path)
    with pytest.raises(BadInputError, match=r"deep\.jsonl:2: the JSON is nested too deeply"):
        load_agentworldbench(path)


def test_json_lines_are_read_one_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(json.dumps(official_row()).encode() + b"\n\xff\xfe not text\n")

    rows = read_rows(path)

    assert next(rows)[0] == f"{path}:1"  # the broken second line is not read yet
    with pytest.raises(BadInputError, match=r"rows\.jsonl:2: not UTF-8 text"):
        next(rows)


def test_malformed_parquet_row_names_the_row(tmp_path: Path) -> None:
    path = write_parquet(tmp_path / "bad.parquet", [official_row(), official_row(turn_idx=3)])
    with pytest.raises(BadInputError, match=r"bad.parquet row 2: .*turn_idx 3"):
        load_agentworldbench(path)


def test_unknown_path_kinds_are_refused(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="does not exist"):
        load_agentworldbench(tmp_path / "missing.jsonl")
    (tmp_path / "rows.csv").write_text("a,b\n", "utf-8")
    with pytest.raises(BadInputError, match="unknown file kind"):
        load_agentworldbench(tmp_path / "rows.csv")
    with pytest.raises(BadInputError, match="holds no data file"):
        load_agentworldbench(tmp_path)


def test_rows_need_observed_turns_in_range(samples: list[Trajectory]) -> None:
    t = samples[0]
    with pytest.raises(BadInputError, match=r"is not in 1\.\."):
        trajectory_to_rows(t, SYSTEM, [len(t.turns) + 1])
    blind = t.model_copy(update={"turns": [Turn(action=t.turns[0].action)]})
    with pytest.raises(BadInputError, match="no observation"):
        trajectory_to_rows(blind, SYSTEM)


def test_hub_download_offline_gives_a_clear_error(tmp_path: Path) -> None:
    code = (
        "from backend.data.agentworldbench import load_hub_dataset\n"
        "from backend.errors import BadInputError\n"
        "try:\n    load_hub_dataset(timeout_s=2)\n"
        "except BadInputError as exc:\n    print(exc)\n"
    )
    env = os.environ | {
        "HF_HUB_OFFLINE": "1",
        "HF_HOME": str(tmp_path / "hf"),
        "PYTHONPATH": str(REPO),
    }
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "Cannot download the dataset 'Qwen/AgentWorldBench'" in done.stdout
    assert "import the folder instead" in done.stdout


# --- turn text ------------------------------------------------------------------------------

TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=40)


@given(
    index=st.integers(min_value=1, max_value=500),
    action=TEXT,
    state=st.none() | TEXT.filter(lambda s: "**Action:**" not in s),
)
def test_parse_user_turn_inverts_format_user_turn(
    index: int, action: str, state: str | None
) -> None:
    parsed = parse_user_turn(format_user_turn(index, action, state))
    assert (parsed.index, parsed.action, parsed.current_state) == (index, action, state)


@given(observation=TEXT)
def test_observation_text_inverts_format_assistant_turn(observation: str) -> None:
    assert observation_text(format_assistant_turn(observation)) == observation


def test_observation_in_another_layout_gets_the_official_strip() -> None:
    assert observation_text("**Environment Observation:** done \n") == "done"
