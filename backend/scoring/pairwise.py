"""Pairwise blind test: shown the real and the simulated observation as A and B, which is real?

A judge that cannot tell them apart (accuracy near 50%) is the strongest evidence of a good
simulator. The real observation's position is drawn per item from a seeded generator, so the
judge's own position bias cannot favour either side and a run is reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from backend.engines.base import Engine
from backend.scoring.judge import JUDGE_PARAMS
from backend.scoring.judge_common import MAX_HISTORY_CHARS, ask_with_retries, render_context
from backend.scoring.judge_library import PAIRWISE, JudgePromptLibrary
from backend.scoring.judge_parse import parse_boxed_choice
from backend.types import ChatMessage, SamplingParams, Turn

Label = Literal["A", "B"]


class PairwiseItem(BaseModel):
    """One blind comparison."""

    domain: str
    action: str
    predicted: str
    reference: str
    history: list[Turn] = Field(default_factory=list)
    previous: str | None = None


class PairwiseResult(BaseModel):
    """The judge's choice; `judge_correct` is None when it failed to choose."""

    real_label: Label
    chosen: Label | None
    judge_correct: bool | None
    failed: bool
    error: str | None = None
    attempts: int
    raw: str
    judge_engine: str
    judge_model: str
    prompt_version: str
    temperature: float


def render_pair(item: PairwiseItem, real_label: Label, max_history_chars: int) -> str:
    """The user message with the two candidates in the drawn order."""
    first, second = (
        (item.reference, item.predicted) if real_label == "A" else (item.predicted, item.reference)
    )
    context = render_context(item.history, item.action, item.previous, max_history_chars)
    return (
        f"{context}\n\n## Candidate A\n<observation_a>\n{first}\n</observation_a>\n\n"
        f"## Candidate B\n<observation_b>\n{second}\n</observation_b>"
    )


def run_pairwise(
    engine: Engine,
    items: Sequence[PairwiseItem],
    prompts: JudgePromptLibrary | None = None,
    params: SamplingParams = JUDGE_PARAMS,
    retries: int = 2,
    seed: int = 0,
    max_history_chars: int = MAX_HISTORY_CHARS,
) -> list[PairwiseResult]:
    """Ask the judge, for every item, which candidate is the real observation."""
    prompt = (prompts or JudgePromptLibrary()).get(PAIRWISE)
    rng = random.Random(seed)
    labels: list[Label] = ["A" if rng.random() < 0.5 else "B" for _ in items]
    conversations = [
        [
            ChatMessage(role="system", content=prompt.text),
            ChatMessage(role="user", content=render_pair(item, label, max_history_chars)),
        ]
        for item, label in zip(items, labels, strict=True)
    ]
    outcomes = ask_with_retries(engine, conversations, params, parse_boxed_choice, retries)
    return [
        PairwiseResult(
            real_label=label,
            chosen="A" if outcome.value == "A" else "B" if outcome.value == "B" else None,
            judge_correct=None if outcome.value is None else outcome.value == label,
            failed=outcome.value is None,
            error=outcome.error,
            attempts=outcome.attempts,
            raw=outcome.text,
            judge_engine=engine.name,
            judge_model=engine.model,
            prompt_version=prompt.version,
            temperature=params.temperature,
        )
        for label, outcome in zip(labels, outcomes, strict=True)
    ]
