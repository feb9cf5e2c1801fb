"""Embedded engine: load time, time to first token and decode speed on this machine.

Run: `python benchmarks/bench_embedded.py` (uses the model prepared in AWP_DATA_DIR). Reports the
median over a few prompts of each figure; decode speed counts tokens after the first.
"""

from __future__ import annotations

import resource
import statistics
import time

from app.settings import Settings
from backend.domains.prompts import PromptLibrary
from backend.engines.base import build_engine
from backend.simulate import Simulator
from backend.types import SamplingParams, SimRequest

ACTION = '[{"keystrokes": "ls -la\\n", "duration": 1}]'
NEW_TOKENS = 64
RUNS = 3


def main() -> None:
    """Print load time, TTFT, decode tokens/s and peak RSS for the embedded engine."""
    settings = Settings()
    started = time.perf_counter()
    engine = build_engine(settings.engine_config("transformers"))
    simulator = Simulator(engine, PromptLibrary())
    params = SamplingParams(max_new_tokens=NEW_TOKENS, temperature=0.6, seed=0)
    request = SimRequest(domain="terminal", action=ACTION, params=params)
    chat = simulator.prepare(request).chat
    next(iter(engine.stream(chat)))  # first call loads the model
    load_s = time.perf_counter() - started
    ttfts, speeds, prompt_tokens = [], [], 0
    for _ in range(RUNS):
        begin = time.perf_counter()
        first = None
        for chunk in engine.stream(chat):
            if first is None and chunk.content_delta:
                first = time.perf_counter()
            if chunk.completion is not None:
                done = time.perf_counter()
                prompt_tokens = chunk.completion.prompt_tokens
                tokens = chunk.completion.completion_tokens
        assert first is not None
        ttfts.append(first - begin)
        speeds.append((tokens - 1) / (done - first))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"prompt tokens            {prompt_tokens}")
    print(f"load + first call        {load_s:.1f} s")
    print(f"time to first token      {statistics.median(ttfts):.2f} s (median of {RUNS})")
    print(f"decode speed             {statistics.median(speeds):.1f} tokens/s")
    print(f"peak RSS                 {peak_mb:.0f} MiB")
    engine.close()


if __name__ == "__main__":
    main()
