"""The CLI's edges: usage errors, `awp sessions list|show`, and what a failed step stores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.context import AppContext
from backend.types import Trajectory, Turn
from tests.support.cli import run

LS = '[{"keystrokes": "ls\\n", "duration": 1}]'


def awp(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["sessions"], "Usage: awp sessions"),
        (["bench", "--foo"], "No such option: --foo"),
        (["bench", "--engine", "oracle"], "Missing option '--dataset'"),
        (["simulate", "--turn", "x"], "Invalid value for '--turn'"),
    ],
)
def test_usage_errors_print_usage_not_a_traceback(args: list[str], said: str, awp_data) -> None:
    result = awp(*args, env={"AWP_DATA_DIR": str(awp_data)})
    assert result.returncode == 2
    assert said in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_simulate_help_names_a_command_that_exists(awp_data) -> None:
    code, out = run("simulate", "--help")
    assert code == 0 and "awpsessionslist" in "".join(out.replace("│", "").split())
    assert run("sessions", "list")[0] == 0


def test_sessions_list_and_show(awp_context: AppContext) -> None:
    code, out = run("simulate", "--domain", "terminal", "--action", LS, "--engine", "persistence")
    assert code == 0, out
    code, listed = run("sessions", "list")
    assert code == 0 and "cli" in listed and "persistence" in listed
    [summary] = awp_context.sessions.list_sessions()
    code, shown = run("sessions", "show", str(summary.id))
    assert code == 0 and f"Session #{summary.id} (cli)" in shown and "prediction #" in shown
    code, raw = run("sessions", "show", str(summary.id), "--json")
    stored = json.loads(raw)
    assert stored["kind"] == "cli" and stored["steps"][0]["predictions"][0]["messages"]
    assert run("sessions", "show", "999")[1].endswith("Session 999 does not exist.")


def test_a_failed_step_stores_no_session(awp_context: AppContext) -> None:
    dead = ["--engine", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]
    code, out = run("simulate", "--domain", "terminal", "--action", LS, *dead)
    assert code == 2 and "Cannot reach" in out
    assert awp_context.sessions.list_sessions() == []


def test_an_unscorable_reference_keeps_the_prediction_and_the_task(
    awp_context: AppContext, tmp_path: Path
) -> None:
    trajectory = Trajectory(
        id="t",
        domain="os",
        task="Open the about page",
        turns=[Turn(action="pyautogui.click(10, 10)", observation="<a11y><node")],
        source="test",
        licence="MIT",
    )
    history = tmp_path / "t.json"
    history.write_text(trajectory.model_dump_json(), encoding="utf-8")
    args = ["--history", str(history), "--turn", "1", "--engine", "oracle", "--json"]
    code, out = run("simulate", *args)
    assert code == 0, out
    printed = json.loads(out.strip().splitlines()[-1])
    stored = awp_context.sessions.load_session(printed["session_id"])
    assert stored.task == "Open the about page" and stored.context.task == stored.task
    step = stored.steps[-1]
    assert step.prediction is not None and step.prediction.prediction.observation
    assert step.prediction.scores == [] and printed["scores"] == []
    assert "Open the about page" in printed["messages"][0]["content"]


def test_a_session_keeps_its_history_mode(awp_data) -> None:
    code, out = run(
        "simulate", "--domain", "terminal", "--action", LS, "--engine", "persistence", "--json"
    )
    session_id = json.loads(out)["session_id"]
    code, out = run(
        "simulate", "--session", str(session_id), "--action", LS, "--history-mode", "blind"
    )
    assert code == 2 and "keep that history mode" in out
