"""`awp simulate --json` end to end, in a real subprocess, on real recorded trajectories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from backend.data.bundled import load_bundled
from backend.domains import BUILTIN

pytestmark = pytest.mark.slow

PREDICTION_FIELDS = {
    "observation",
    "reasoning",
    "raw_text",
    "finish_reason",
    "prompt_tokens",
    "completion_tokens",
    "latency_s",
    "engine",
    "model",
}


def run_awp(args: list[str], data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AWP_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def first_trajectory(domain: str):
    return next(t for t in load_bundled() if t.domain == domain and len(t.turns) >= 2)


@pytest.mark.parametrize("domain", BUILTIN)
def test_simulate_json_with_the_embedded_model(domain, data_dir, tmp_path):
    trajectory = first_trajectory(domain)
    history = tmp_path / "trajectory.json"
    history.write_text(trajectory.model_dump_json(), encoding="utf-8")

    result = run_awp(
        ["simulate", "--history", str(history), "--turn", "2", "--json", "--max-new-tokens", "8"],
        data_dir,
    )

    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out.keys() >= PREDICTION_FIELDS
    assert out["engine"] == "transformers"
    assert out["domain"] == domain
    assert out["reference"] == trajectory.turns[1].observation
    assert out["finish_reason"] in {"stop", "length"}
    assert 0 < out["completion_tokens"] <= 8
    assert out["prompt_tokens"] > 0


def test_oracle_baseline_returns_the_recorded_observation(data_dir, tmp_path):
    trajectory = first_trajectory("web")
    history = tmp_path / "trajectory.json"
    history.write_text(trajectory.model_dump_json(), encoding="utf-8")

    result = run_awp(
        ["simulate", "--history", str(history), "--turn", "2", "--engine", "oracle", "--json"],
        data_dir,
    )

    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["observation"] == trajectory.turns[1].observation.strip()
    assert out["engine"] == "oracle"


def test_bad_action_is_one_clear_line_and_exit_code_2(data_dir):
    result = run_awp(["simulate", "--domain", "terminal", "--action", "ls -la"], data_dir)

    assert result.returncode == 2
    assert result.stderr.startswith("Error: ")
    assert "Traceback" not in result.stderr


def test_unknown_domain_suggests_the_closest(data_dir):
    result = run_awp(["simulate", "--domain", "termnal", "--action", "[]"], data_dir)

    assert result.returncode == 2
    assert "Did you mean 'terminal'?" in result.stderr
