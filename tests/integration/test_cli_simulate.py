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
from backend.domains.prompts import PromptLibrary
from backend.engines.base import EngineConfig, build_engine
from backend.simulate import Simulator
from backend.types import SamplingParams, SimRequest

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


# The bundled search recording's first result page is 5,400 characters of Chinese: with its
# task in the prompt, turn 2 no longer fits SmolLM2's 8,192-token window (a clear refusal).
TURN = {"search": 1}

ANSWER_TOKENS = 2
"""New tokens per domain on the embedded model: enough to show it answered."""


def test_simulate_json_with_the_embedded_model(data_dir, tmp_path):
    trajectory = first_trajectory("terminal")
    history = tmp_path / "trajectory.json"
    history.write_text(trajectory.model_dump_json(), encoding="utf-8")

    args = ["--history", str(history), "--turn", "2", "--json", "--max-new-tokens", "8"]
    result = run_awp(["simulate", *args], data_dir)

    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out.keys() >= PREDICTION_FIELDS
    assert (out["engine"], out["domain"]) == ("transformers", "terminal")
    assert out["reference"] == trajectory.turns[1].observation
    assert out["messages"][0]["role"] == "system" and out["messages"][-1]["role"] == "user"
    assert out["action"] in out["messages"][-1]["content"]
    assert out["finish_reason"] in {"stop", "length"}
    assert 0 < out["completion_tokens"] <= 8
    assert out["prompt_tokens"] > 0
    assert out["session_id"] > 0 and out["step_id"] > 0 and out["prediction_id"] > 0


def test_every_domain_runs_on_the_embedded_model(data_dir):
    """Each domain's prompt (its task included) fits the embedded model and gets an answer.

    One step at a time: a batch pads every prompt to the longest (8k tokens), which on a CPU
    costs far more than the steps one by one. Two new tokens show an answer came; the prefill
    of the prompt is what this test is about.
    """
    engine = build_engine(EngineConfig(name="transformers", data_dir=data_dir))
    simulator = Simulator(engine, PromptLibrary())
    params = SamplingParams(max_new_tokens=ANSWER_TOKENS, seed=0)
    requests = []
    for domain in BUILTIN:
        trajectory = first_trajectory(domain)
        turn = TURN.get(domain, 2) - 1
        requests.append(
            SimRequest(
                domain=domain,
                system_prompt=trajectory.system_prompt,
                context=trajectory.prompt_context(),
                initial_state=trajectory.initial_state,
                history=trajectory.turns[:turn],
                action=trajectory.turns[turn].action,
                params=params,
            )
        )
    try:
        predictions = [simulator.step(request) for request in requests]
    finally:
        engine.close()
    for request, prediction in zip(requests, predictions, strict=True):
        assert prediction.engine == "transformers" and prediction.prompt_tokens > 0
        assert 0 < prediction.completion_tokens <= ANSWER_TOKENS, request.domain
        assert prediction.messages[0].role == "system"
        if request.context.task:
            assert request.context.task in prediction.messages[0].content


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


def test_a_session_continues_with_its_stored_history(data_dir, tmp_path):
    trajectory = first_trajectory("terminal")
    history = tmp_path / "trajectory.json"
    history.write_text(trajectory.model_dump_json(), encoding="utf-8")
    first = run_awp(
        ["simulate", "--history", str(history), "--turn", "2", "--engine", "oracle", "--json"],
        data_dir,
    )
    session_id = json.loads(first.stdout)["session_id"]

    second = run_awp(
        [
            "simulate",
            "--session",
            str(session_id),
            "--action",
            '[{"keystrokes": "pwd\\n", "duration": 1}]',
            "--engine",
            "persistence",
            "--json",
        ],
        data_dir,
    )

    assert second.returncode == 0, second.stderr
    out = json.loads(second.stdout)
    assert out["session_id"] == session_id
    # persistence repeats the last observation the session holds: turn 2's recorded one
    assert out["observation"] == trajectory.turns[1].observation.strip()
    assert out["step_id"] > json.loads(first.stdout)["step_id"]
