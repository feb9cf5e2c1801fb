"""The engine cache stays bounded however many model names arrive, without breaking a request
that is still using an engine it forgets."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from app.context import build_context
from backend.engines.cache import ENGINE_CACHE_SIZE
from backend.types import ChatMessage, ChatRequest, SamplingParams
from tests.support.fake_openai import FakeOpenAIServer, events_reply, json_reply

HELLO = {"choices": [{"delta": {"content": "hello"}, "finish_reason": "stop"}]}
COMPLETION = {"choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]}


def chat() -> ChatRequest:
    return ChatRequest(
        messages=[ChatMessage(role="user", content="ls")],
        params=SamplingParams(temperature=0.0, max_new_tokens=5),
    )


def test_many_model_names_keep_only_the_most_recent_engines(tmp_path: Path) -> None:
    context = build_context(data_dir=tmp_path)
    names = [f"model-{i}" for i in range(3 * ENGINE_CACHE_SIZE)]

    engines = [weakref.ref(context.engine("openai", name)) for name in names]
    gc.collect()

    alive = [name for name, engine in zip(names, engines, strict=True) if engine() is not None]
    assert alive == names[-ENGINE_CACHE_SIZE:]
    assert context.engine("openai", names[-1]) is engines[-1]()  # still cached, not rebuilt
    context.close()


def test_an_engine_pushed_out_mid_stream_finishes_then_lets_go_of_its_connection(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    context = build_context(data_dir=tmp_path, base_url=fake_openai.base_url)
    fake_openai.script.append(events_reply([HELLO]))
    fake_openai.script += [json_reply(200, COMPLETION) for _ in range(ENGINE_CACHE_SIZE + 1)]
    running = context.engine("openai", "m0").stream(chat())
    assert next(running).content_delta == "hello"  # held by this request only from here on

    for i in range(1, ENGINE_CACHE_SIZE + 2):  # each builds an engine with a kept-alive connection
        assert context.engine("openai", f"m{i}").generate([chat()])[0].text == "ok"

    *_, last = running  # m0 and m1 were pushed out; m0's stream still ends normally
    assert last.completion is not None and last.completion.text == "hello"
    del running, last
    gc.collect()
    assert fake_openai.wait_for_connections(ENGINE_CACHE_SIZE) == ENGINE_CACHE_SIZE
    context.close()
    assert fake_openai.wait_for_connections(0) == 0
