"""Session-wide fixtures for engine tests: the tiny model folder and a server that serves it.

Load them with `pytest_plugins = ["tests.support.fixtures"]` in `tests/conftest.py`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fake_openai import FakeOpenAIServer, serve_fake_openai
from tests.support.openai_server import OpenAIServer, serve_openai
from tests.support.tiny_model import build_tiny_model


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Qwen3-MoE model folder, built once per test session."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny-qwen3-moe"))


@pytest.fixture(scope="session")
def openai_server(
    tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[OpenAIServer]:
    """A real `transformers serve` process serving the tiny model, shared by the session."""
    log = tmp_path_factory.mktemp("transformers-serve") / "server.log"
    with serve_openai(tiny_model_dir, log) as server:
        yield server


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A scripted loopback server that answers (and misbehaves) as each test tells it."""
    with serve_fake_openai() as server:
        yield server
