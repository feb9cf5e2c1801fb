"""Live environments from the command line: `awp simulate --live`, `awp live tasks`, `awp record`.

The recorded rows go through `awp bench`, where the oracle must score 100 and persistence (a
screen copied from before each command) nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from app.context import AppContext
from app.settings import Settings
from backend.envs.live import cgroups
from tests.support.cli import run
from tests.support.live import skip_unless_live

pytestmark = skip_unless_live("terminal")

ECHO = '[{"keystrokes": "echo hello-live\\n", "duration": 0.5}]'
LS = '[{"keystrokes": "ls -a\\n", "duration": 0.5}]'


def test_simulate_live_scores_against_the_real_screen(awp_context: AppContext) -> None:
    args = ["--live", "--domain", "terminal", "--action", ECHO, "--engine", "persistence"]
    code, out = run("simulate", *args, "--json")
    assert code == 0, out
    first = json.loads(out.strip().splitlines()[-1])
    assert first["reference_source"] == "live"
    assert "hello-live\nuser@sandbox:~$" in first["reference"]
    assert first["scores"][0]["name"] == "screen_delta"

    # --session N --live stands where the session stood: the echo is replayed, then `ls -a`.
    code, out = run(
        "simulate",
        "--session",
        str(first["session_id"]),
        "--live",
        "--action",
        LS,
        "--engine",
        "persistence",
        "--json",
    )
    assert code == 0, out
    second = json.loads(out.strip().splitlines()[-1])
    assert second["session_id"] == first["session_id"]
    assert "hello-live" in second["reference"] and "ls -a\n." in second["reference"]
    # persistence repeats the last real screen, which the live run recorded
    assert second["observation"] == first["reference"].strip()

    stored = awp_context.sessions.load_session(first["session_id"])
    assert [step.origin for step in stored.steps] == ["live", "live"]
    assert stored.base_trajectory_id is not None
    trajectory = awp_context.trajectories.get(stored.base_trajectory_id)
    assert trajectory.source == "live:terminal" and len(trajectory.turns) == 2
    assert "tmux" in trajectory.metadata["environment_version"]


def test_live_needs_its_own_start(awp_data) -> None:
    code, out = run("simulate", "--live", "--domain", "android", "--action", "{}")
    assert code == 2 and "no emulator" in out
    code, out = run(
        "simulate", "--live", "--domain", "terminal", "--action", ECHO, "--history", "x.json"
    )
    assert code == 2 and "leave out --history" in out
    code, out = run("simulate", "--domain", "terminal", "--action", ECHO, "--engine", "oracle")
    assert code == 2  # the oracle has no truth to give off a recording
    code, out = run(
        "simulate", "--domain", "terminal", "--action", ECHO, "--engine", "persistence", "--json"
    )
    recorded = json.loads(out.strip().splitlines()[-1])["session_id"]
    code, out = run("simulate", "--session", str(recorded), "--live", "--action", LS)
    assert code == 2 and "not recorded in a live environment" in out


def test_live_tasks_lists_what_runs_and_why_not(awp_data) -> None:
    code, out = run("live", "tasks")
    assert code == 0
    assert "terminal: 7 tasks, 6 with a success check" in out and "project" in out
    assert "swe: 6 tasks, 6 with a success check" in out
    assert "check: the task's hidden copy of its tests passes" in out
    assert "android: not available here. No live Android" in out


def test_record_writes_rows_that_the_benchmark_reads(awp_data, tmp_path: Path) -> None:
    actions = tmp_path / "actions.json"
    actions.write_text(
        json.dumps(
            [
                [{"keystrokes": "mkdir demo && cd demo\n", "duration": 0.4}],
                [{"keystrokes": "echo 'print(6*7)' > a.py\n", "duration": 0.4}],
                [{"keystrokes": "python3 a.py\n", "duration": 1.0}],
            ]
        ),
        encoding="utf-8",
    )
    rows = tmp_path / "rows.jsonl"
    code, out = run("record", "--domain", "terminal", "--actions", str(actions), "--out", str(rows))
    assert code == 0, out
    assert cgroups.limits_held(Settings().live_config()) in out  # said before it starts
    written = [json.loads(line) for line in rows.read_text(encoding="utf-8").splitlines()]
    assert [r["turn_idx"] for r in written] == [1, 2, 3] and written[0]["task"] == "terminal"
    assert "42" in written[-1]["response"][-1]

    bench = tmp_path / "bench"
    code, out = run(
        "bench",
        "--dataset",
        str(rows),
        "--engine",
        "oracle",
        "--engine",
        "persistence",
        "--out",
        str(bench),
    )
    assert code == 0, out
    results = json.loads((bench / "results.json").read_text(encoding="utf-8"))
    assert results["engines"]["oracle"]["domains"]["terminal"]["headline_value"] == 1.0
    assert results["engines"]["persistence"]["domains"]["terminal"]["headline_value"] == 0.0

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(["ls"]), encoding="utf-8")
    code, out = run("record", "--domain", "terminal", "--actions", str(bad), "--out", str(rows))
    assert code == 2 and "action 1" in out
