"""The model card written into a run folder (and pushed with the model to the Hub)."""

from __future__ import annotations

from backend.training.evaluate import format_eval_table
from backend.training.results import TrainResults

EMBEDDED_LICENCE = "apache-2.0"


def model_card(results: TrainResults, licence: str = EMBEDDED_LICENCE) -> str:
    """A Hugging Face model card: front matter, then data, sizes, settings and the eval table."""
    config = results.config
    sizes = results.sizes
    mode = f"LoRA (rank {config.lora_rank}, merged)" if config.lora else "full fine-tuning"
    table = (
        format_eval_table(results.eval)
        if results.eval is not None
        else "No held-out evaluation was run for this source."
    )
    rate = f"{results.tokens_per_s:.0f}" if results.tokens_per_s else "not counted"
    return f"""---
license: {licence}
base_model: {results.base_model}
library_name: transformers
tags: [agentworld-playground, world-model, trl, {config.method}]
---

# World model fine-tuned with AgentWorld Playground ({config.method})

A language world model: given an environment's system prompt, the history of (action,
observation) turns and the agent's action, it predicts the next observation.

- **Base model:** `{results.base_model}`
- **Method:** {config.method}, {mode}
- **Data:** {results.data} (sha256 `{results.data_hash[:16]}`)
- **Examples:** {sizes.examples} in all; {sizes.train_examples} trained on from
  {sizes.train_groups} trajectories; {sizes.heldout_groups} trajectories
  ({sizes.heldout_items} turns) held out, split by trajectory with seed {config.seed}
- **Token budget:** {config.max_length} tokens per example; {sizes.cut} examples lost their
  oldest history turns, {sizes.dropped} did not fit even without history and were left out;
  the held-out prompts were fitted the same way ({sizes.heldout_cut} cut,
  {sizes.heldout_dropped} left out)
- **Hyper-parameters:** learning rate {config.rate()}, batch {config.batch_size} x
  {config.grad_accum} accumulation, {results.steps} steps, max {config.max_minutes} minutes
- **Cost:** {results.train_seconds:.0f} s of training, {rate} tokens/s,
  peak memory {results.peak_memory_mb:.0f} MB

## Held-out evaluation

Headline metric per domain (0-1), teacher-forced history, greedy decoding, the same settings
before (base) and after (tuned) training; persistence (the previous state unchanged) and oracle
(the truth) give the scale.

{table}

## Licence

The weights derive from `{results.base_model}` and keep its licence ({licence}); the training
data's licences are listed with the recordings it came from.
"""
