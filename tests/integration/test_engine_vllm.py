"""The in-process vLLM engine: on a GPU host with vLLM installed; elsewhere, a clear refusal."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.engines.base import Engine, EngineConfig, build_engine
from backend.errors import EngineUnavailableError
from backend.types import ChatMessage, ChatRequest, SamplingParams

HAS_VLLM = importlib.util.find_spec("vllm") is not None


def chat(text: str, **params: object) -> ChatRequest:
    settings = {"temperature": 0.0, "max_new_tokens": 4, **params}
    return ChatRequest(
        messages=[ChatMessage(role="user", content=text)],
        params=SamplingParams.model_validate(settings),
    )


@pytest.mark.skipif(HAS_VLLM, reason="vllm is installed here")
def test_missing_vllm_says_how_to_install() -> None:
    with pytest.raises(EngineUnavailableError, match=r"agentworld-playground\[vllm\]"):
        build_engine(EngineConfig(name="vllm"))


@pytest.fixture(scope="module")
def engine(tiny_model_dir: Path) -> Iterator[Engine]:
    pytest.importorskip("vllm")
    engine = build_engine(EngineConfig(name="vllm", model=str(tiny_model_dir)))
    yield engine
    engine.close()


@pytest.mark.slow
def test_batch_keeps_order_and_budgets(engine: Engine) -> None:
    budgets = [3, 1, 2]

    completions = engine.generate([chat("ls " * n, max_new_tokens=n) for n in budgets])

    assert [c.completion_tokens for c in completions] == budgets
    assert all(c.finish_reason == "length" and c.prompt_tokens > 0 for c in completions)


@pytest.mark.slow
def test_stream_is_one_final_chunk(engine: Engine) -> None:
    chunks = list(engine.stream(chat("pwd", temperature=0.6, seed=1)))

    assert len(chunks) == 1
    assert chunks[0].completion is not None
    assert chunks[0].completion.engine == "vllm"
