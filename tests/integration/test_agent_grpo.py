"""`awp train-agent`: GRPO on an agent in the world model, and the checkpoint as a rollout agent.

A minimal run (the tiny random model, one step, two completions, persistence as the world
model) on two checked terminal tasks: it writes a model folder and its results, every reward is
the predicted check (persistence never predicts a pass, so 0), and `awp rollout --agent` takes
the trained folder and measures it live with `--sim-to-real`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.context import AppContext
from backend.envs.live.base import live_kind
from tests.integration.test_rollout import rollout
from tests.support.cli import run
from tests.support.live import skip_unless_live

TRAIN = ("hello", "backup")


def _tasks(path: Path, names: tuple[str, ...]) -> Path:
    goals = {task.name: task.goal for task in live_kind("terminal").tasks()}
    lines = [json.dumps({"domain": "terminal", "task": goals[n], "live_task": n}) for n in names]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.slow
@skip_unless_live("terminal")
def test_a_grpo_agent_is_trained_in_simulation_and_measured_live(
    awp_context: AppContext, tiny_model_dir: Path, tmp_path: Path
) -> None:
    tasks = _tasks(tmp_path / "train.jsonl", TRAIN)
    out = tmp_path / "agent"
    code, output = run(
        "train-agent",
        *("--base", str(tiny_model_dir), "--out", str(out), "--engine", "persistence"),
        *("--tasks", str(tasks), "--steps", "1", "--num-generations", "2"),
        *("--max-completion-length", "8"),
    )
    assert code == 0, output
    results = json.loads((out / "agent_grpo.json").read_text())
    assert results["steps"] == 1 and results["tasks"] == list(TRAIN)
    assert results["world"].startswith("persistence") and results["rewards"] == [0.0, 0.0]
    model = out / "model"
    assert (model / "config.json").is_file() and f"awp rollout --agent {model}" in output
    rows, summary = rollout(
        tmp_path / "measured",
        *("--agent", str(model), "--engine", "persistence", "--domain", "terminal"),
        *("--tasks", str(tasks), "--episodes", "2", "--max-steps", "1", "--sim-to-real"),
        *("--agent-max-new-tokens", "8"),
    )
    assert [row["agent"] for row in rows] == [f"transformers:{model}"] * 2
    assert all(row["real_success"] is not None for row in rows)  # checked live
    assert summary["honesty"]["overall"]["outcomes"]["unknown"] == 0


def test_train_agent_refuses_a_used_folder(tmp_path: Path) -> None:
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "file").write_text("x")
    code, output = run("train-agent", "--out", str(tmp_path / "used"), "--engine", "persistence")
    assert code == 2 and "is not empty" in output
