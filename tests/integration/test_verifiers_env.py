"""The world model as a verifiers environment, run by verifiers' own `vf-eval`.

verifiers pins mcp==2.0.0 and openai<3, so it lives in its own venv (`.venv-verifiers`,
`scripts/setup.sh test` makes it); the plugin (`app/hub/verifiers`) reaches `awp env serve`
over OpenEnv's WebSocket protocol. The agent is a scripted OpenAI-compatible model that replays
a recording's actions (streamed, as verifiers asks for them), so every step is a real
world-model step whose reward is known: the oracle world model scores 1 per step.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.context import build_context
from backend.data.bundled import load_bundled
from backend.types import Trajectory
from tests.support.fake_openai import FakeOpenAIServer, events_reply
from tests.support.health import awp_env_server

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("AWP_VERIFIERS_VENV", REPO / ".venv-verifiers"))
PLUGIN = REPO / "app" / "hub" / "verifiers"
needs_verifiers = pytest.mark.skipif(
    not (VENV / "bin" / "vf-eval").exists(),
    reason=f"no verifiers venv at {VENV} (bash scripts/setup.sh test makes it)",
)


def streamed(text: str) -> Any:
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "agent"}
    return events_reply(
        [
            {
                **chunk,
                "choices": [
                    {
                        "index": 0,
                        "delta": {"role": "assistant", "content": text},
                        "finish_reason": None,
                    }
                ],
            },
            {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {
                **chunk,
                "choices": [],
                "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
            },
        ]
    )


@pytest.fixture
def world_server(awp_data: Path, tmp_path: Path) -> Iterator[str]:
    """`awp env serve` with the oracle world model, two steps an episode."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    args = ("--domain", "terminal", "--engine", "oracle", "--max-steps", "2")
    with awp_env_server(tmp_path, *args, env=env, cwd=REPO) as url:
        yield url


def verifiers_env() -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**keep, "PYTHONPATH": str(PLUGIN), "AGENT_KEY": "unused"}


@needs_verifiers
def test_vf_eval_runs_episodes_whose_steps_are_world_model_steps(
    world_server: str, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    recording = next(t for t in load_bundled() if t.domain == "terminal")
    episode, output = vf_eval_episode(world_server, fake_openai, recording, tmp_path / "out")
    if not episode["ok"] and all(UV_BOOTSTRAP in e["message"] for e in episode["errors"]):
        # verifiers' harness fetches its own uv environment from the package index before the
        # episode starts; a registry hiccup there says nothing about the world model: once more
        episode, output = vf_eval_episode(world_server, fake_openai, recording, tmp_path / "again")
    failed = {key: episode.get(key) for key in ("ok", "errors", "traces")}
    assert episode["ok"] and not episode["errors"], (failed, output[-4000:])
    (trace,) = episode["traces"]
    assert trace["rewards"]["world_model_reward"]["score"] == 2.0  # the oracle's, 1 a step

    with build_context() as context:
        summary = max(context.sessions.list_sessions(), key=lambda listed: listed.id)
        session = context.sessions.load_session(summary.id)
    assert session.kind == "rollout"
    assert [step.action for step in session.steps][-2:] == [t.action for t in recording.turns[:2]]
    assert all(step.predictions for step in session.steps[-2:])


UV_BOOTSTRAP = "failed to prepare uv script"
"""verifiers' own harness set-up error when uv cannot sync its script environment."""


def vf_eval_episode(
    world_server: str, fake_openai: FakeOpenAIServer, recording: Trajectory, out: Path
) -> tuple[dict[str, Any], str]:
    """Run `vf-eval` for one episode against the world server; its one trace and its output."""
    fake_openai.script = [streamed(turn.action) for turn in recording.turns[:2]]
    done = subprocess.run(
        [
            str(VENV / "bin" / "vf-eval"),
            "awp-world-model",
            "--env.taskset.base-url",
            world_server,
            "--env.taskset.episodes",
            "1",
            "-m",
            "agent",
            "--client.base-url",
            fake_openai.base_url,
            "--client.api-key-var",
            "AGENT_KEY",
            "--no-push",
            "-o",
            str(out),
        ],
        env=verifiers_env(),
        cwd=out.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    (traces,) = out.glob("*/traces.jsonl")
    (episode,) = [json.loads(line) for line in traces.read_text().splitlines()]
    return episode, output


@needs_verifiers
def test_load_environment_builds_the_env_as_verifiers_does() -> None:
    probe = (
        "from awp_world_model import load_environment, AwpWorldModelEnv\n"
        "env = load_environment(base_url='http://127.0.0.1:1', episodes=3)\n"
        "print(type(env).__name__, len(list(env.taskset)))\n"
    )
    done = subprocess.run(
        [str(VENV / "bin" / "python"), "-c", probe],
        env=verifiers_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["AwpWorldModelEnv", "3"]
