"""The openai engine against a real `transformers serve`, plus a scripted server for failures.

The scripted server stands in for what the tiny real server cannot be made to do: answer 503,
report a context overflow like vLLM, or stream `reasoning_content`.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from backend.engines.base import Engine, EngineConfig, build_engine
from backend.errors import EngineRequestError, EngineUnavailableError, PromptTooLongError
from backend.types import ChatMessage, ChatRequest, SamplingParams
from tests.support.openai_server import OpenAIServer, free_port

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


def test_server_down_is_unavailable_quickly() -> None:
    engine = openai_engine(f"http://127.0.0.1:{free_port()}/v1", "m", max_retries=1, timeout_s=2)
    started = time.perf_counter()

    with pytest.raises(EngineUnavailableError, match=r"Cannot reach .* Is it running\?"):
        engine.generate([chat()])

    assert time.perf_counter() - started < 5


def test_wrong_model_lists_the_served_ones(openai_server: OpenAIServer) -> None:
    engine = openai_engine(openai_server.base_url, "no-such-model")

    with pytest.raises(EngineRequestError) as error:
        engine.generate([chat()])

    assert "no-such-model" in str(error.value)
    assert openai_server.model in str(error.value)


class Scripted(ThreadingHTTPServer):
    """A loopback server that answers POSTs from a script of (status, body) and records them."""

    def __init__(self, script: list[tuple[int, Any]]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = script
        self.bodies: list[dict[str, Any]] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: Scripted

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        self.server.bodies.append(json.loads(self.rfile.read(length)))
        status, body = self.server.script.pop(0)
        if isinstance(body, list):  # a list of events is sent as a server-sent event stream
            payload = "".join(f"data: {json.dumps(e)}\n\n" for e in body) + "data: [DONE]\n\n"
            content_type = "text/event-stream"
        else:
            payload, content_type = json.dumps(body), "application/json"
        data = payload.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""


@pytest.fixture
def scripted() -> Iterator[Scripted]:
    server = Scripted([])
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_retries_503_then_succeeds(scripted: Scripted) -> None:
    busy = {"error": {"message": "overloaded"}}
    scripted.script += [(503, busy), (503, busy), (200, COMPLETION)]

    completion = openai_engine(scripted.base_url, "m", max_retries=3).generate([chat()])[0]

    assert completion.text == "ok"
    assert (completion.prompt_tokens, completion.completion_tokens) == (7, 1)
    assert len(scripted.bodies) == 3


def test_retries_run_out_on_a_busy_server(scripted: Scripted) -> None:
    scripted.script += [(429, {"error": "slow down"})] * 2

    with pytest.raises(EngineUnavailableError, match="429"):
        openai_engine(scripted.base_url, "m", max_retries=1).generate([chat()])

    assert len(scripted.bodies) == 2


def test_context_overflow_is_prompt_too_long(scripted: Scripted) -> None:
    message = "This model's maximum context length is 4096 tokens. However, you requested 9000."
    scripted.script.append((400, {"error": {"message": message}}))

    with pytest.raises(PromptTooLongError, match="4096"):
        openai_engine(scripted.base_url, "m").generate([chat()])


def test_unknown_model_is_named_even_without_a_model_list(scripted: Scripted) -> None:
    scripted.script.append((404, {"error": {"message": "The model `big` does not exist."}}))

    with pytest.raises(EngineRequestError, match="does not serve the model 'big'"):
        openai_engine(scripted.base_url, "big", max_retries=0).generate([chat()])


def test_other_refusals_keep_the_servers_reason(scripted: Scripted) -> None:
    scripted.script.append((400, {"detail": "temperature must be at most 2"}))

    with pytest.raises(EngineRequestError, match=r"refused the request \(400\): temperature"):
        openai_engine(scripted.base_url, "m").generate([chat()])


def test_sends_sampling_settings(scripted: Scripted) -> None:
    scripted.script.append((200, COMPLETION))

    openai_engine(scripted.base_url, "m").generate([chat(temperature=0.6, top_k=20, seed=3)])

    body = scripted.bodies[0]
    assert (body["model"], body["temperature"], body["top_p"]) == ("m", 0.6, 0.95)
    assert (body["top_k"], body["seed"], body["max_tokens"]) == (20, 3, 5)


def test_stream_separates_reasoning(scripted: Scripted) -> None:
    events = [
        {"choices": [{"delta": {"reasoning_content": "The user lists files."}}]},
        {"choices": [{"delta": {"reasoning": " Show two."}}]},
        {"choices": [{"delta": {"content": "a.txt\nb.txt"}, "finish_reason": "stop"}]},
        {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 12}},
    ]
    scripted.script.append((200, events))

    chunks = list(openai_engine(scripted.base_url, "m").stream(chat()))

    assert [c.reasoning_delta for c in chunks[:-1]] == ["The user lists files.", " Show two.", ""]
    completion = chunks[-1].completion
    assert completion is not None
    assert completion.reasoning == "The user lists files. Show two."
    assert completion.text == "a.txt\nb.txt"
    assert (completion.prompt_tokens, completion.completion_tokens) == (9, 12)
    assert scripted.bodies[0]["stream_options"] == {"include_usage": True}
