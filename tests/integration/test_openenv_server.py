"""`awp env serve` is a real OpenEnv server: OpenEnv's own client drives it over WebSockets."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import httpx
import pytest

from app.openenv_env import WorldAction, WorldModelClient
from backend.data.bundled import load_bundled
from tests.support.health import awp_env_server

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    env = {**os.environ, "AWP_DATA_DIR": str(tmp_path / "data")}
    args = ("--domain", "terminal", "--engine", "oracle", "--max-steps", "3")
    with awp_env_server(tmp_path, *args, env=env) as url:
        yield url


def test_openenv_client_runs_an_episode(server: str) -> None:
    recording = next(t for t in load_bundled() if t.domain == "terminal")
    schema = httpx.get(f"{server}/schema", timeout=5).json()
    assert "action" in schema["action"]["properties"]
    with WorldModelClient(base_url=server).sync() as client:
        first = client.reset(index=0)
        assert first.observation.domain == "terminal" and not first.done
        bad = client.step(WorldAction(action="ls"))
        assert bad.observation.text.startswith("Invalid action") and bad.reward < 0
        result = client.step(WorldAction(action=recording.turns[0].action))
        # The oracle world model returns the recorded screen: full reference reward.
        assert result.observation.text == recording.turns[0].observation and result.reward == 1.0
        last = client.step(WorldAction(action=recording.turns[1].action))
        assert last.done and last.observation.truncated
        state = client.state()
        assert state.step_count == 3 and state.session_id is not None
        assert json.loads(json.dumps(last.observation.info))["scores"]


def test_one_grpo_step_against_the_server(server: str, tiny_model_dir: Path, tmp_path) -> None:
    """TRL's GRPOTrainer trains a (tiny, random) agent through the OpenEnv environment."""
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer
    from trl.chat_template_utils import qwen3_chat_template

    from app.openenv_env import WorldModelToolEnv

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    # The tiny model's tokenizer files come without Qwen3's tool-calling chat template; a real
    # Qwen3 checkpoint ships this one, which TRL knows how to parse tool calls from.
    tokenizer.chat_template = qwen3_chat_template

    prompt = [{"role": "user", "content": "Use the act tool to list the files."}]
    data = Dataset.from_list([{"prompt": prompt, "index": i} for i in range(2)])
    config = GRPOConfig(
        output_dir=str(tmp_path / "grpo"),
        max_steps=1,
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=16,
        report_to=[],
        use_cpu=True,
        save_strategy="no",
    )
    trainer = GRPOTrainer(
        model=AutoModelForCausalLM.from_pretrained(tiny_model_dir),
        processing_class=tokenizer,
        args=config,
        train_dataset=data,
        environment_factory=partial(WorldModelToolEnv, server),
    )
    assert trainer.train().global_step == 1
    # Each rollout had its own OpenEnv session, reset on the server to a terminal episode.
    environments = trainer.environments
    assert len(environments) == 2 and all(isinstance(e, WorldModelToolEnv) for e in environments)
    assert all(e.client.state().domain == "terminal" for e in environments)
    logged = {key for entry in trainer.state.log_history for key in entry}
    assert any("WorldModelToolEnv" in key for key in logged)
