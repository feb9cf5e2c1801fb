"""Training cost on this machine: tokens/s and peak memory, LoRA and full, at 1,024 and 2,048
tokens; and the time of one GRPO step with 4 generations of 64 tokens.

Each configuration runs in a fresh process (`--one`), so its peak RSS is its own; the model is the
embedded SmolLM2-135M (prepared in `--data-dir`). The SFT cases train on random token ids of the
given length (the cost of a step depends on the length only); the GRPO case runs TRL's trainer on
recorded transitions with `backend.export.rewards.world_model_reward`. On a shared machine,
compare the ratios within one run, not absolute numbers across runs.

Usage: PYTHONPATH=. python benchmarks/bench_train.py [--steps 3] [--data-dir DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CASES = [("lora", 1024), ("full", 1024), ("lora", 2048), ("full", 2048)]


def base_model(data_dir: Path) -> Path:
    """The embedded model folder (converted on first use)."""
    from backend.engines.embedded import prepare_embedded_model

    return prepare_embedded_model(data_dir)


def sft_case(mode: str, length: int, steps: int, data_dir: Path) -> dict[str, Any]:
    """Forward + backward + optimizer step on one sequence of `length` tokens, `steps` times."""
    import torch
    from transformers import AutoModelForCausalLM

    from backend.training.config import TrainConfig
    from backend.training.service import _peft_config

    model = AutoModelForCausalLM.from_pretrained(base_model(data_dir))
    if mode == "lora":
        from peft import get_peft_model

        config = TrainConfig(method="sft", data="-", out=data_dir, lora=True)
        model = get_peft_model(model, _peft_config(config))
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    ids = torch.randint(0, model.config.vocab_size, (1, length))
    model.train()

    def step() -> None:
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

    step()  # warm-up: allocations, kernels
    start = time.perf_counter()
    for _ in range(steps):
        step()
    elapsed = time.perf_counter() - start
    return {"case": f"{mode}-{length}", "tokens_per_s": steps * length / elapsed}


def grpo_case(steps: int, data_dir: Path) -> dict[str, Any]:
    """Seconds per GRPO step: 4 generations of 64 tokens per prompt, scored by the reward."""
    import datasets

    from backend.data.bundled import load_bundled
    from backend.domains.prompts import PromptLibrary
    from backend.training.config import TrainConfig
    from backend.training.methods import METHODS, common_args
    from backend.training.service import _load, _peft_config
    from backend.training.sources import from_trajectories
    from backend.training.truncate import fit_examples

    method = METHODS.get("grpo")
    terminal = [t for t in load_bundled() if t.domain == "terminal"]
    data = from_trajectories(terminal, method, PromptLibrary(None).system_prompt)
    model, tokenizer = _load(base_model(data_dir))
    config = TrainConfig(
        method="grpo",
        data="recorded",
        out=data_dir / "grpo",
        max_steps=steps + 1,
        num_generations=4,
        max_completion_length=64,
        grad_accum=1,
        save_steps=1000,
    )
    fitted, _ = fit_examples(tokenizer, data.examples, 1024, 64)
    dataset = datasets.Dataset.from_list([e.columns for e in fitted])
    args = common_args(config, str(config.out), use_cpu=True)
    trainer = method.trainer(config, args, dataset, model, tokenizer, _peft_config(config))
    outcome = trainer.train()  # the first step's warm-up is included: read it as an upper bound
    seconds = outcome.metrics["train_runtime"] / max(1, outcome.global_step)
    return {"case": "grpo-4x64", "seconds_per_step": seconds, "steps": outcome.global_step}


def one(name: str, steps: int, data_dir: Path) -> dict[str, Any]:
    """Run one case in this process and add its peak RSS."""
    if name == "grpo":
        result = grpo_case(steps, data_dir)
    else:
        mode, length = name.split("-")
        result = sft_case(mode, int(length), steps, data_dir)
    result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def main() -> None:
    """Run every case in its own process and print the table (and JSON)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="awp-bench-train-"))
    if args.one:
        sys.stdout.write(json.dumps(one(args.one, args.steps, data_dir)) + "\n")
        return
    results = []
    for name in [f"{mode}-{length}" for mode, length in CASES] + ["grpo"]:
        command = [
            sys.executable,
            __file__,
            "--one",
            name,
            "--steps",
            str(args.steps),
            "--data-dir",
            str(data_dir),
        ]
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=True)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        sys.stdout.write(json.dumps(results[-1]) + "\n")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
