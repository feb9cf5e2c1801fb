"""The openai engine against a real `transformers serve`, plus a scripted server for failures.

The scripted server (`tests.support.fake_openai`) stands in for what the tiny real server cannot
be made to do: answer 503, report a context overflow like vLLM, or stream `reasoning_content`.
Broken and stalled answers are in `test_engine_faults.py`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from backend.engines import http_client
from backend.engines.base import Engine, EngineConfig, build_engine
from backend.errors import EngineRequestError, EngineUnavailableError, PromptTooLongError
from backend.types import ChatMessage, ChatRequest, SamplingParams
from tests.support.fake_openai import FakeOpenAIServer, events_reply, json_reply
from tests.support.health import free_port
from tests.support.openai_server import OpenAIServer

COMPLETION = {
    "choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 7, "completion_tokens": 1},
}


def chat(text: str = "ls -la", **params: object) -> ChatRequest:
    settings = {"temperature": 0.0, "max_new_tokens": 5, **params}
    return ChatRequest(
        messages=[ChatMessage(role="user", content=text)],
        params=SamplingParams.model_validate(settings),
    )


def openai_engine(base_url: str, model: str = "", **options: Any) -> Engine:
    return build_engine(EngineConfig(name="openai", base_url=base_url, model=model, **options))


@pytest.fixture(scope="module")
def engine(openai_server: OpenAIServer) -> Iterator[Engine]:
    engine = openai_engine(openai_server.base_url, openai_server.model, concurrency=4)
    yield engine
    engine.close()


def test_generate_reports_usage_and_budget(engine: Engine, openai_server: OpenAIServer) -> None:
    completion = engine.generate([chat()])[0]

    assert (completion.engine, completion.model) == ("openai", openai_server.model)
    assert completion.finish_reason == "length"
    assert completion.completion_tokens == 5
    assert completion.prompt_tokens > 0


def test_empty_model_takes_the_servers_first(openai_server: OpenAIServer) -> None:
    engine = openai_engine(openai_server.base_url)

    assert engine.generate([chat(max_new_tokens=1)])[0].model == openai_server.model


def test_stream_yields_deltas_then_the_completion(openai_server: OpenAIServer) -> None:
    engine = openai_engine(openai_server.base_url, openai_server.model)

    chunks = list(engine.stream(chat(max_new_tokens=6)))

    *deltas, last = chunks
    assert all(c.completion is None for c in deltas)
    assert last.completion is not None
    assert last.completion.text == "".join(c.content_delta for c in deltas)
    assert last.completion.completion_tokens == 6
    assert last.completion.finish_reason == "length"


def test_batch_runs_concurrently_and_keeps_order(engine: Engine) -> None:
    budgets = [4, 1, 3, 2]

    completions = engine.generate([chat(f"echo {n}", max_new_tokens=n) for n in budgets])

    assert [c.completion_tokens for c in completions] == budgets


def test_server_down_is_unavailable_after_the_retries_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Quick means bounded work: one try plus `max_retries`, one short backoff, no timeout waits."""
    attempts: list[str] = []
    pauses: list[float] = []
    real_send, real_pause = httpx.Client.send, http_client._pause

    def counted_send(self: httpx.Client, request: httpx.Request, **kwargs: Any) -> Any:
        attempts.append(str(request.url))
        return real_send(self, request, **kwargs)

    def counted_pause(seconds: float, deadline: Any) -> None:
        pauses.append(seconds)
        real_pause(seconds, deadline)

    monkeypatch.setattr(httpx.Client, "send", counted_send)
    monkeypatch.setattr(http_client, "_pause", counted_pause)
    engine = openai_engine(f"http://127.0.0.1:{free_port()}/v1", "m", max_retries=1, timeout_s=2)

    with pytest.raises(EngineUnavailableError, match=r"Cannot reach .* Is it running\?"):
        engine.generate([chat()])

    assert len(attempts) == 2 and attempts[0].endswith("/v1/chat/completions")
    assert len(pauses) == 1 and pauses[0] <= http_client.BACKOFF_BASE_S


def test_wrong_model_lists_the_served_ones(openai_server: OpenAIServer) -> None:
    engine = openai_engine(openai_server.base_url, "no-such-model")

    with pytest.raises(EngineRequestError) as error:
        engine.generate([chat()])

    assert "no-such-model" in str(error.value)
    assert openai_server.model in str(error.value)


def test_retries_503_then_succeeds(fake_openai: FakeOpenAIServer) -> None:
    busy = {"error": {"message": "overloaded"}}
    fake_openai.script += [*[json_reply(503, busy)] * 2, json_reply(200, COMPLETION)]

    completion = openai_engine(fake_openai.base_url, "m", max_retries=3).generate([chat()])[0]

    assert completion.text == "ok"
    assert (completion.prompt_tokens, completion.completion_tokens) == (7, 1)
    assert len(fake_openai.bodies) == 3


def test_retries_run_out_on_a_busy_server(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script += [json_reply(429, {"error": "slow down"})] * 2

    with pytest.raises(EngineUnavailableError, match="429"):
        openai_engine(fake_openai.base_url, "m", max_retries=1).generate([chat()])

    assert len(fake_openai.bodies) == 2


def test_context_overflow_is_prompt_too_long(fake_openai: FakeOpenAIServer) -> None:
    message = "This model's maximum context length is 4096 tokens. However, you requested 9000."
    fake_openai.script.append(json_reply(400, {"error": {"message": message}}))

    with pytest.raises(PromptTooLongError, match="4096"):
        openai_engine(fake_openai.base_url, "m").generate([chat()])


def test_unknown_model_is_named_even_without_a_model_list(fake_openai: FakeOpenAIServer) -> None:
    missing = {"error": {"message": "The model `big` does not exist."}}
    fake_openai.script.append(json_reply(404, missing))

    with pytest.raises(EngineRequestError, match="does not serve the model 'big'"):
        openai_engine(fake_openai.base_url, "big", max_retries=0).generate([chat()])


def test_other_refusals_keep_the_servers_reason(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script.append(json_reply(400, {"detail": "temperature must be at most 2"}))

    with pytest.raises(EngineRequestError, match=r"refused the request \(400\): temperature"):
        openai_engine(fake_openai.base_url, "m").generate([chat()])


def test_sends_sampling_settings(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script.append(json_reply(200, COMPLETION))

    openai_engine(fake_openai.base_url, "m").generate([chat(temperature=0.6, top_k=20, seed=3)])

    body = fake_openai.bodies[0]
    assert (body["model"], body["temperature"], body["top_p"]) == ("m", 0.6, 0.95)
    assert (body["top_k"], body["seed"], body["max_tokens"]) == (20, 3, 5)


def test_stream_separates_reasoning(fake_openai: FakeOpenAIServer) -> None:
    events = [
        {"choices": [{"delta": {"reasoning_content": "The user lists files."}}]},
        {"choices": [{"delta": {"reasoning": " Show two."}}]},
        {"choices": [{"delta": {"content": "a.txt\nb.txt"}, "finish_reason": "stop"}]},
        {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 12}},
    ]
    fake_openai.script.append(events_reply(events))

    chunks = list(openai_engine(fake_openai.base_url, "m").stream(chat()))

    assert [c.reasoning_delta for c in chunks[:-1]] == ["The user lists files.", " Show two.", ""]
    completion = chunks[-1].completion
    assert completion is not None
    assert completion.reasoning == "The user lists files. Show two."
    assert completion.text == "a.txt\nb.txt"
    assert (completion.prompt_tokens, completion.completion_tokens) == (9, 12)
    assert fake_openai.bodies[0]["stream_options"] == {"include_usage": True}
