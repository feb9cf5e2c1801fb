"""OpenCUA AgentNet raw recording: a human's Windows 10 session with UIA accessibility trees.

Read from `derived_transitions.jsonl` (each reduced action with the indexes of the trees before
and after it) and `a11y.jsonl` (32 timestamped trees). Observation: the tree serialised with
`json.dumps(ensure_ascii=False)`, which reproduces the recorded line's text byte for byte (the
tests check this). Action: the reduced mouse event translated into one pyautogui line, e.g.
`pyautogui.click(1328, 745)`; the event itself is recorded, its pyautogui spelling is ours.

The recorder took snapshots between actions too; where the tree before an action is not the tree
after the previous one, the screen changed without a reduced action, so the recording is split
there into separate trajectories (a history must lead to the state the next action sees).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from backend.data.recorded.common import Provenance, dump_json, read_json, read_jsonl
from backend.errors import BadInputError
from backend.types import Trajectory, Turn

FOLDER = "os/opencua-agentnet-raw"
PROVENANCE = Provenance("xlang-ai/OpenCUA", "1d70f20663dcaa01f10c7fed5669887286545866", "MIT")
REPO_PATH = "data/data-process/datasets/raw/20241106114028_<annotator>_2c05b837-.../"
NOTES = (
    "Human demonstration on real Windows 10 (1366x768) recorded by AgentNetTool. Observations are "
    "the recorded UIA accessibility trees (Windows UIA, not OSWorld's Ubuntu AT-SPI). Actions are "
    "the recorded reduced mouse events translated into pyautogui calls (the translation is ours; "
    "the events are recorded). The session is split where the screen changed between actions "
    "without a recorded action."
)
_CLICK = re.compile(r"^(?P<count>Single|Double|Triple) (?P<button>left|right|middle) Click$")
_DRAG = re.compile(r"^Drag from \((?P<x1>\d+), (?P<y1>\d+)\) to \((?P<x2>\d+), (?P<y2>\d+)\)$")
_SCROLL = re.compile(r"^Scroll (?P<arrow>⬇️|⬆️)×(?P<amount>\d+)\s*$")
_CLICK_FUNCTIONS = {
    ("Single", "left"): "click",
    ("Single", "right"): "rightClick",
    ("Single", "middle"): "middleClick",
    ("Double", "left"): "doubleClick",
    ("Triple", "left"): "tripleClick",
}


def _match(pattern: re.Pattern[str], event: dict[str, Any]) -> re.Match[str]:
    match = pattern.match(event["description"])
    if match is None:
        raise BadInputError(f"{FOLDER}: cannot translate event {event['description']!r}")
    return match


def _click(event: dict[str, Any]) -> str:
    match = _match(_CLICK, event)
    function = _CLICK_FUNCTIONS.get((match["count"], match["button"]))
    if function is None:
        raise BadInputError(f"{FOLDER}: no pyautogui call for {event['description']!r}")
    point = event["coordinate"]
    return f"pyautogui.{function}({point['x']}, {point['y']})"


def _drag(event: dict[str, Any]) -> str:
    match = _match(_DRAG, event)
    return (
        f"pyautogui.moveTo({match['x1']}, {match['y1']}); "
        f"pyautogui.dragTo({match['x2']}, {match['y2']}, button='left')"
    )


def _scroll(event: dict[str, Any]) -> str:
    match = _match(_SCROLL, event)
    sign = "-" if match["arrow"] == "⬇️" else ""
    return f"pyautogui.scroll({sign}{match['amount']})"


ACTIONS: dict[str, Callable[[dict[str, Any]], str]] = {
    "click": _click,
    "drag": _drag,
    "scroll": _scroll,
}
"""Reduced event kind -> its pyautogui line."""


def to_pyautogui(event: dict[str, Any]) -> str:
    """Translate one reduced event of `derived_transitions.jsonl` into a pyautogui line."""
    translate = ACTIONS.get(event["action"])
    if translate is None:
        raise BadInputError(f"{FOLDER}: no pyautogui translation for {event['action']!r}")
    return translate(event)


def segments(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Split events where the tree before one is not the tree after the previous one."""
    runs: list[list[dict[str, Any]]] = []
    for event in events:
        if runs and runs[-1][-1]["a11y_after_index"] == event["a11y_before_index"]:
            runs[-1].append(event)
        else:
            runs.append([event])
    return runs


def convert(root: Path) -> list[Trajectory]:
    """One trajectory per continuous run of actions in the recording."""
    folder = root / FOLDER
    trees = [dump_json(row["axtree"]) for row in read_jsonl(folder / "a11y.jsonl")]
    events = list(read_jsonl(folder / "derived_transitions.jsonl"))
    task = read_json(folder / "task_name.json")["task_name"]
    machine = read_json(folder / "metadata.json")
    screen = {"width": machine["screen_width"], "height": machine["screen_height"]}
    names = ("derived_transitions.jsonl", "a11y.jsonl", "task_name.json", "metadata.json")
    files = [f"{FOLDER}/{name}" for name in names]
    trajectories = []
    for number, run in enumerate(segments(events), start=1):
        turns = [
            Turn(action=to_pyautogui(event), observation=trees[event["a11y_after_index"]])
            for event in run
        ]
        trajectories.append(
            PROVENANCE.trajectory(
                id=f"opencua/display-settings/part{number}",
                domain="os",
                path=REPO_PATH,
                files=files,
                turns=turns,
                task=task,
                initial_state=trees[run[0]["a11y_before_index"]],
                notes=NOTES,
                metadata={
                    "reduced_event_indexes": [e["reduced_event_index"] for e in run],
                    "a11y_indexes": [run[0]["a11y_before_index"]]
                    + [e["a11y_after_index"] for e in run],
                    "targets": [e["target"] for e in run],
                    "screen": screen,
                },
            )
        )
    return trajectories
