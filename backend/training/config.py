"""The options of one training run (the CLI flags, and what the runs table stores)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field


class TrainConfig(BaseModel):
    """How to train.

    Attributes:
        method: sft, dpo, kto, grpo or cpt (`backend.training.methods.METHODS`).
        data: `recorded`, `corrections`, or a path to an export (JSONL, Parquet, datasets folder).
        base: a local model folder; None means the embedded SmolLM2.
        out: the run folder (model, checkpoints, split, results, card).
        lora: train a LoRA adapter (merged into the saved model) instead of every weight.
        max_length: tokens per example; longer ones lose their oldest history turns.
        eval_split: share of trajectories held out for evaluation (0 turns evaluation off).
        eval_max_new_tokens: completion budget of the held-out benchmark (greedy decoding).
        eval_limit: only the first N held-out items are benchmarked (None: all).
    """

    method: str
    data: str
    base: str | None = None
    out: Path
    lora: bool = True
    max_steps: int | None = Field(default=None, ge=1)
    max_minutes: float | None = Field(default=None, gt=0)
    epochs: float = Field(default=3.0, gt=0)
    eval_split: float = Field(default=0.3, ge=0, lt=1)
    seed: int = 0
    resume: bool = False
    max_length: int = Field(default=1024, ge=64)
    learning_rate: float | None = Field(default=None, gt=0)
    batch_size: int = Field(default=1, ge=1)
    grad_accum: int = Field(default=4, ge=1)
    lora_rank: int = Field(default=16, ge=1)
    save_steps: int = Field(default=25, ge=1)
    num_generations: int = Field(default=4, ge=2)
    max_completion_length: int = Field(default=64, ge=1)
    eval_max_new_tokens: int = Field(default=256, ge=1)
    eval_limit: int | None = Field(default=None, ge=1)

    def rate(self) -> float:
        """The learning rate: the given one, else a usual default for LoRA or full training."""
        return self.learning_rate or (3e-4 if self.lora else 2e-5)
