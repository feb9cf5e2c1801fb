"""Recorded-data converters, run on the real files in shared/data/recorded."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from backend.data.recorded import CONVERTERS, load_recorded, verify_checksums
from backend.data.recorded.android import decode_dump
from backend.data.recorded.opencua import to_pyautogui
from backend.domains import BUILTIN
from backend.errors import BadInputError, UnknownNameError
from backend.types import Trajectory


@pytest.fixture(scope="module")
def converted(recorded_root: Path) -> dict[str, list[Trajectory]]:
    return {name: CONVERTERS.get(name)(recorded_root) for name in CONVERTERS}


def by_id(trajectories: list[Trajectory]) -> dict[str, Trajectory]:
    return {t.id: t for t in trajectories}


def read_json(root: Path, name: str) -> object:
    return json.loads((root / name).read_text(encoding="utf-8"))


def action(trajectory: Trajectory, index: int) -> object:
    return json.loads(trajectory.turns[index].action)


# --- every source ---------------------------------------------------------------------------


def test_every_source_converts_with_provenance(
    converted: dict[str, list[Trajectory]], recorded_root: Path
) -> None:
    manifest = (recorded_root / "MANIFEST.md").read_text(encoding="utf-8")
    ids = [t.id for trajectories in converted.values() for t in trajectories]
    assert len(ids) == len(set(ids))
    for name, trajectories in converted.items():
        assert trajectories, name
        for t in trajectories:
            assert t.domain in BUILTIN
            assert t.turns and all(turn.observation is not None for turn in t.turns)
            assert t.licence in {"MIT", "Apache-2.0"}
            assert t.commit is not None and t.commit in manifest
            assert t.source.split(":", 1)[0] in manifest
            assert t.notes
            assert all((recorded_root / f).is_file() for f in t.metadata["recorded_files"])


def test_turn_counts_match_the_manifest(converted: dict[str, list[Trajectory]]) -> None:
    def turns(name: str) -> Counter[str]:
        counts: Counter[str] = Counter()
        for t in converted[name]:
            counts[t.domain] += len(t.turns)
        return counts

    assert turns("mkrww") == Counter({"terminal": 36, "swe": 7})
    assert turns("swe-agent") == Counter({"swe": 28})
    assert turns("swe-agent-ctf") == Counter({"terminal": 32})
    assert turns("tau-bench") == Counter({"mcp": 1164})
    assert turns("widesearch") == Counter({"search": 32})
    assert turns("miniwob") == Counter({"web": 7})
    assert turns("opencua") == Counter({"os": 14})
    assert turns("android") == Counter({"android": 30})


def test_load_recorded_runs_the_named_sources(recorded_root: Path) -> None:
    assert {t.domain for t in load_recorded(recorded_root, ["miniwob"])} == {"web"}
    with pytest.raises(UnknownNameError, match="Did you mean 'miniwob'"):
        load_recorded(recorded_root, ["miniwb"])


def test_checksums_pass_and_catch_an_edit(recorded_root: Path, tmp_path: Path) -> None:
    assert verify_checksums(recorded_root) > 90
    copy = tmp_path / "recorded"
    shutil.copytree(recorded_root, copy)
    target = copy / "web" / "agentlab-miniwob" / "derived_episodes.json"
    target.chmod(0o644)
    target.write_bytes(target.read_bytes().replace(b"click", b"clack", 1))
    with pytest.raises(BadInputError, match=r"derived_episodes.json \(modified\)"):
        verify_checksums(copy)


# --- per source -----------------------------------------------------------------------------


def test_mkrww_composes_stderr_then_stdout(converted: dict[str, list[Trajectory]]) -> None:
    errors = by_id(converted["mkrww"])["mkrww/errors"]
    assert errors.turns[0].observation == "cat: /nonexistent_file_xyz: No such file or directory"
    assert errors.turns[1].observation == "exit=1"
    assert errors.turns[4].observation == (
        "ls: cannot access '/root/private_xyz': Permission denied\nrc=2"
    )
    assert errors.metadata["stdout_only_turns"] == [2, 4]
    assert action(errors, 0) == [{"keystrokes": "cat /nonexistent_file_xyz\n", "duration": 1.0}]
    python = by_id(converted["mkrww"])["mkrww/python"]
    assert python.turns[3].observation == ""  # the IndexError traceback went to unrecorded stderr
    assert 4 in python.metadata["stdout_only_turns"]


def test_mkrww_swe_sequence_is_a_swe_trajectory(converted: dict[str, list[Trajectory]]) -> None:
    swe = by_id(converted["mkrww"])["mkrww/swe"]
    assert swe.domain == "swe"
    assert action(swe, 6) == {
        "name": "bash",
        "arguments": {
            "command": "git init -q && git add -A && git commit -q -m init && "
            "git log --oneline | wc -l"
        },
    }
    assert swe.turns[6].observation == "1"


@pytest.mark.parametrize(
    ("source", "folder", "domain"),
    [
        ("swe-agent", "swe/swe-agent", "swe"),
        ("swe-agent-ctf", "terminal/swe-agent-ctf", "terminal"),
    ],
)
def test_swe_agent_keeps_raw_tool_output(
    converted: dict[str, list[Trajectory]],
    recorded_root: Path,
    source: str,
    folder: str,
    domain: str,
) -> None:
    trajectories = by_id(converted[source])
    for path in sorted((recorded_root / folder).glob("*.traj")):
        steps = json.loads(path.read_text(encoding="utf-8"))["trajectory"]
        t = trajectories[f"swe-agent/{path.stem}"]
        assert t.domain == domain
        assert [turn.observation for turn in t.turns] == [s["observation"] for s in steps]
        commands = [
            action(t, i)["arguments"]["command"]
            if domain == "swe"
            else action(t, i)[0]["keystrokes"]
            for i in range(len(steps))
        ]
        assert [c.rstrip("\n") for c in commands] == [s["action"].rstrip("\n") for s in steps]


def test_tau_bench_pairs_each_call_with_its_reply(
    converted: dict[str, list[Trajectory]], recorded_root: Path
) -> None:
    record = read_json(recorded_root, "mcp/tau-bench/gpt-4o-airline.json")[0]
    replies = [m["content"] for m in record["traj"] if m["role"] == "tool"]
    first = converted["tau-bench"][0]
    assert first.id == "tau-bench/airline/0/trial0"
    assert [turn.observation for turn in first.turns] == replies
    assert action(first, 0) == {"name": "get_user_details", "arguments": {"user_id": "mia_li_3668"}}
    assert first.task.startswith("You are mia_li_3668.")


def test_widesearch_maps_tools_and_keeps_results(
    converted: dict[str, list[Trajectory]], recorded_root: Path
) -> None:
    (t,) = converted["widesearch"]
    names = Counter(action(t, i)["name"] for i in range(len(t.turns)))
    assert names == Counter({"web_search": 27, "web_extractor": 5})
    assert action(t, 10) == {
        "name": "web_extractor",
        "arguments": {"url": "https://www.boxofficemojo.com/year/2020/"},
    }
    text = (recorded_root / "search/widesearch_exp/20260210_175701.jsonl").read_text("utf-8")
    for turn in t.turns:  # the file's own text, once re-indented to its nesting depth
        first, *rest = str(turn.observation).split("\n")
        assert any(
            "\n".join([first, *(" " * depth + line for line in rest)]) in text
            for depth in range(0, 20, 2)
        )


def test_miniwob_uses_the_recorded_trees(
    converted: dict[str, list[Trajectory]], recorded_root: Path
) -> None:
    episodes = read_json(recorded_root, "web/agentlab-miniwob/derived_episodes.json")
    for episode, t in zip(episodes, converted["miniwob"], strict=True):
        steps = episode["steps"]
        assert t.initial_state == steps[0]["axtree_txt"]
        assert [turn.observation for turn in t.turns] == [s["axtree_txt"] for s in steps[1:]]
        assert [turn.action for turn in t.turns] == [
            s["action_taken_after_this_obs"] for s in steps[:-1]
        ]
    assert "checked='true'" in str(converted["miniwob"][0].turns[0].observation)


def test_opencua_trees_are_the_recorded_text(
    converted: dict[str, list[Trajectory]], recorded_root: Path
) -> None:
    lines = (recorded_root / "os/opencua-agentnet-raw/a11y.jsonl").read_text("utf-8").split("\n")
    raw_trees = [line[line.index('"axtree": ') + len('"axtree": ') : -1] for line in lines if line]
    parts = converted["opencua"]
    assert [len(t.turns) for t in parts] == [3, 8, 3]
    for t in parts:
        indexes = t.metadata["a11y_indexes"]
        assert t.initial_state == raw_trees[indexes[0]]
        assert [turn.observation for turn in t.turns] == [raw_trees[i] for i in indexes[1:]]
    assert [turn.action for turn in parts[0].turns][:2] == [
        "pyautogui.click(1328, 745)",
        "pyautogui.rightClick(1305, 393)",
    ]
    assert parts[1].turns[0].action == (
        "pyautogui.moveTo(621, 206); pyautogui.dragTo(561, 213, button='left')"
    )
    assert parts[1].turns[2].action == "pyautogui.scroll(-3)"


def test_opencua_refuses_an_event_it_cannot_translate() -> None:
    with pytest.raises(BadInputError, match="no pyautogui translation"):
        to_pyautogui({"action": "type", "description": "Type hello"})
    with pytest.raises(BadInputError, match="no pyautogui call"):
        to_pyautogui({"action": "click", "description": "Double right Click", "coordinate": None})


def test_android_decodes_utf16_and_drops_the_trailer(recorded_root: Path) -> None:
    folder = recorded_root / "android"
    raw = (folder / "swiftapp__ui_before_tap.xml").read_bytes()
    assert raw.startswith(b"\xff\xfe")
    text = decode_dump(raw)
    assert text.startswith("<?xml version='1.0' encoding='UTF-8'")
    assert text.endswith("</hierarchy>")
    assert text == raw.decode("utf-16").removesuffix("UI hierchary dumped to: /dev/tty\r\n")
    bom_utf8 = decode_dump((folder / "swiftapp__ui_fab_check.xml").read_bytes())
    assert bom_utf8.startswith("<?xml") and bom_utf8.endswith("</hierarchy>")
    plain = (folder / "uicheckpoint__page.xml").read_bytes()
    assert decode_dump(plain) == plain.decode("utf-8")  # byte-faithful, newlines included
    no_bom = raw[2:]
    assert decode_dump(no_bom) == text  # NUL bytes alone reveal UTF-16LE


def test_android_trajectories_say_action_inferred(
    converted: dict[str, list[Trajectory]], recorded_root: Path
) -> None:
    trajectories = converted["android"]
    assert all(t.action_inferred and "NOT recorded" in t.notes for t in trajectories)
    shield = trajectories[0]
    assert shield.id == "android/shieldapp__ui/shieldapp__ui9"
    assert len(shield.turns) == 8
    action = json.loads(shield.turns[2].action)
    assert action["action_type"] == "inferred"
    assert action["description"].startswith("scroll down 322 px")
    assert shield.initial_state == (recorded_root / "android/shieldapp__ui.xml").read_text("utf-8")
    commits = {t.id.split("/")[1]: t.commit for t in trajectories}
    assert commits["swiftapp__MT__ui_keyboard_closed"] == "45ace21a0b3c84ac686b3aa7bfad74c3de0b6609"
    assert commits["swiftapp__ui11"] == "4507a80de13650e5cfa968d1de0b76a95467043b"
