r"""The LLM judge's pairwise vote on an arena pair: which prediction is closer to the real one?

The official release ships two pairwise templates: the first ("which one is real?") is served
by the judge prompt library as `pairwise`; this is the second ("which is closer to the ground
truth?"), asked about the very pairs people voted on, in the order they saw them, so the judge's
leaderboard and its agreement with people are measured on the same battles. It reuses the
rubric judge's context message, retry loop and `\boxed{}` parser.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from backend.engines.base import Engine
from backend.scoring.judge import JUDGE_PARAMS
from backend.scoring.judge_common import MAX_HISTORY_CHARS, ask_with_retries, render_context
from backend.scoring.judge_parse import parse_boxed_choice
from backend.types import ChatMessage, SamplingParams, Turn

CLOSER_VERSION = "closer-v1"
CLOSER_PROMPT = r"""You are shown an agent's interaction with an environment, the agent's current
action, the real observation the environment returned after it, and two candidate predictions,
A and B, written by world models that had to guess that observation. Decide which candidate is
closer to the real observation: the one that gets the action's effect right matters more than
surface formatting; a candidate that merely repeats the previous state when the real state
changed is wrong; runtime values (times, ids) need only be plausible.

Reason briefly, then end with your answer as \boxed{A} or \boxed{B}."""

Side = Literal["a", "b"]


class PairItem(BaseModel):
    """One arena pair as shown to people: candidate A, candidate B and the truth."""

    domain: str
    action: str
    first: str
    second: str
    reference: str
    history: list[Turn] = Field(default_factory=list)
    previous: str | None = None


class PairVerdict(BaseModel):
    """The judge's pick; `chosen` is None when it failed to choose."""

    chosen: Side | None
    error: str | None = None
    attempts: int
    raw: str
    judge_engine: str
    judge_model: str
    prompt_version: str = CLOSER_VERSION


def render_pair_item(item: PairItem, max_history_chars: int = MAX_HISTORY_CHARS) -> str:
    """The judge's user message: context, the truth, then A and B."""
    context = render_context(item.history, item.action, item.previous, max_history_chars)
    return (
        f"{context}\n\n## Real observation\n<real_observation>\n{item.reference}\n"
        f"</real_observation>\n\n## Candidate A\n<observation_a>\n{item.first}\n</observation_a>"
        f"\n\n## Candidate B\n<observation_b>\n{item.second}\n</observation_b>"
    )


def judge_pairs(
    engine: Engine,
    items: Sequence[PairItem],
    params: SamplingParams = JUDGE_PARAMS,
    retries: int = 2,
) -> list[PairVerdict]:
    """Ask the judge about every pair in one batched call (plus retries for unparsable answers)."""
    conversations = [
        [
            ChatMessage(role="system", content=CLOSER_PROMPT),
            ChatMessage(role="user", content=render_pair_item(item)),
        ]
        for item in items
    ]
    outcomes = ask_with_retries(engine, conversations, params, parse_boxed_choice, retries)
    verdicts = []
    for outcome in outcomes:
        chosen: Side | None = None
        if outcome.value in ("A", "B"):
            chosen = "a" if outcome.value == "A" else "b"
        verdicts.append(
            PairVerdict(
                chosen=chosen,
                error=outcome.error,
                attempts=outcome.attempts,
                raw=outcome.text,
                judge_engine=engine.name,
                judge_model=engine.model,
            )
        )
    return verdicts
