"""`awp rollout`: the replay agent in simulation on every domain; shadow and sim-to-real live."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.settings import Settings
from backend.domains.base import all_domains
from storage.migrate import open_database
from storage.sessions import SessionStore
from tests.support.cli import run
from tests.support.live import skip_unless_live

SHELL_RECORDING = {
    "id": "test/live-shell",
    "domain": "terminal",
    "task": "Make a file and list it.",
    "source": "test",
    "licence": "Apache-2.0",
    "live_task": "shell",
    "turns": [
        {"action": '[{"keystrokes": "echo hello > a.txt\\n", "duration": 0.3}]', "observation": ""},
        {"action": '[{"keystrokes": "ls\\n", "duration": 0.3}]', "observation": "a.txt"},
        {"action": "[]", "observation": ""},
    ],
}


def rollout(out: Path, *args: str) -> tuple[list[dict], dict]:
    code, output = run("rollout", "--agent", "replay", "--out", str(out), *args)
    assert code == 0, output
    rows = [json.loads(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]
    return rows, json.loads((out / "summary.json").read_text())


def sessions() -> SessionStore:
    return SessionStore(open_database(Settings().resolved_database_url()).session_factory)


def test_replay_agent_in_simulation_on_every_domain(awp_data, tmp_path) -> None:
    domains = [domain.name for domain in all_domains()]
    rows, summary = rollout(
        tmp_path / "out", "--engine", "oracle", "--domain", ",".join(domains), "--episodes", "1"
    )
    assert sorted(summary["domains"]) == sorted(domains) and summary["env"] == "sim"
    for row in rows:
        # The oracle returns the recorded observation: the replayed recording agrees everywhere.
        assert all(step["fidelity"] == 1.0 and not step["invalid"] for step in row["steps"])
        assert row["truncated"] or row["terminated"]
        stored = sessions().load_session(row["session_id"])
        assert stored.kind == "rollout" and len(stored.steps) == len(row["steps"])
    assert all(figures["fidelity"] == 1.0 for figures in summary["domains"].values())


@skip_unless_live("terminal")
@pytest.mark.parametrize("mode", ["live", "shadow", "sim-to-real"])
def test_terminal_live_shadow_and_sim_to_real(awp_data, tmp_path, mode) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(SHELL_RECORDING) + "\n")
    env = ["--env", mode] if mode != "sim-to-real" else ["--env", "sim", "--sim-to-real"]
    base = ["--engine", "persistence", "--domain", "terminal", "--tasks", str(tasks)]
    rows, summary = rollout(tmp_path / "out", *base, *env)
    (row,) = rows
    assert [step["action"] for step in row["steps"]][-1] == "[]" and row["terminated"]
    figures = summary["domains"]["terminal"]
    if mode == "live":
        # The live environment answers; nothing is predicted, the episode is still stored.
        assert "a.txt" in row["steps"][1]["observation"] and row["steps"][1]["predicted"] is None
        stored = sessions().load_session(row["session_id"])
        assert stored.engine == "live" and {s.origin for s in stored.steps} == {"live"}
    elif mode == "shadow":
        # The agent sees the real screen; the world model (persistence) copies the previous one.
        assert "a.txt" in row["steps"][1]["observation"]
        assert row["steps"][1]["predicted"] is not None and 0 <= figures["fidelity"] < 1
        stored = sessions().load_session(row["session_id"])
        assert {step.origin for step in stored.steps} == {"live"}
    else:
        assert "a.txt" in row["steps"][1]["real_observation"]
        assert all(0 <= step["divergence"] <= 1 for step in row["steps"])
        assert figures["divergence"] > 0 and row["real_session_id"] != row["session_id"]


@pytest.mark.slow
def test_model_agent_and_task_judge_on_a_real_engine(awp_data, tmp_path, tiny_model_dir) -> None:
    """A (tiny, random) model acts through our agent prompt; its junk is penalised, not fatal."""
    model = str(tiny_model_dir)
    code, output = run(
        "rollout", "--agent", f"transformers:{model}", "--engine", "transformers",
        "--model", model, "--reward", "task_judge", "--domain", "terminal", "--tasks", "blank",
        "--episodes", "2", "--max-steps", "2", "--max-new-tokens", "8",
        "--agent-max-new-tokens", "8", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert code == 0, output
    lines = (tmp_path / "out" / "rollouts.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    assert len(rows) == 2 and all(row["agent_tokens"] > 0 for row in rows)
    assert all(len(row["steps"]) == 2 and row["truncated"] for row in rows)
    for step in (step for row in rows for step in row["steps"]):
        # A random model rarely writes a valid keystroke batch; an invalid one is penalised.
        assert step["invalid"] == step["observation"].startswith("Invalid action: ")
        assert step["reward"] == (-1.0 if step["invalid"] else 0.0)
