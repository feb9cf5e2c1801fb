"""The five-dimension rubric judge: any engine grades a prediction against the real observation.

The judge dominates absolute numbers (the same predictions scored 51.7 with one judge and 76.7
with another), so every result carries the judge engine, model, prompt version and temperature.
Scores follow the official aggregation: a sample's total is the mean of its non-zero dimension
scores and its 0-100 score is `(total - 1) / 4 * 100`. For web, os and android the caps of the
official judges are also enforced in code, so a judge that ignores them cannot inflate a stale
copy: factuality and quality at most 2 when the prediction repeats the previous state while the
real state changed, and realism at most 3 when factuality or consistency is 1-2.

The official mode (`official`) sends instead exactly the request of the release's `eval.py
judge` (`backend.scoring.official_judge`): its judge prompts and user template, its sampling,
no diagnostics and no caps in code, and a retry that asks the same question again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from backend.engines.base import Engine
from backend.errors import BadInputError
from backend.recording import StoredScore
from backend.scoring.judge_common import MAX_HISTORY_CHARS, ask_with_retries, render_context
from backend.scoring.judge_library import JudgePrompt, JudgePromptLibrary
from backend.scoring.judge_parse import DIMENSIONS, Evaluation, parse_final_evaluation
from backend.scoring.official_judge import OfficialJudgeTemplate, OfficialRow, judge_messages
from backend.scoring.text import normalise_whitespace
from backend.types import ChatMessage, Diagnostics, SamplingParams, Turn

JUDGE_PREFIX = "judge."
"""Stored scores named `judge.<dimension>` hold a judge's 1-5 rubric score, not a metric."""

JUDGE_PARAMS = SamplingParams(temperature=0.0, top_p=1.0, top_k=0, max_new_tokens=2048)
"""Greedy by default: a judge should give the same prediction the same score."""


class JudgeItem(BaseModel):
    """One prediction to grade, with what the judge needs to know.

    `row` and `raw_output` serve the official mode: the AgentWorldBench row the prediction
    answers and the model's raw generation (the prediction itself when not given).
    """

    domain: str
    action: str
    predicted: str
    reference: str
    history: list[Turn] = Field(default_factory=list)
    previous: str | None = None
    diagnostics: Diagnostics | None = None
    row: dict[str, Any] | None = None
    raw_output: str | None = None


class JudgeResult(BaseModel):
    """A rubric verdict, or a counted failure (`failed`, all scores 0, totals None)."""

    scores: dict[str, int]
    total: float | None
    score_100: float | None
    strengths: list[str] = Field(default_factory=list)
    weaknesses: list[str] = Field(default_factory=list)
    caps_applied: list[str] = Field(default_factory=list)
    failed: bool
    error: str | None = None
    attempts: int
    repaired: bool = False
    raw: str
    finish_reason: str
    judge_engine: str
    judge_model: str
    prompt_version: str
    temperature: float


def official_total(scores: dict[str, int]) -> float | None:
    """Mean of the non-zero dimension scores; None when no dimension was scored."""
    rated = [value for value in scores.values() if value]
    return sum(rated) / len(rated) if rated else None


def to_100(total: float | None) -> float | None:
    """The official normalisation `(x - 1) / 4 * 100`."""
    return None if total is None else (total - 1) / 4 * 100


def is_stale_copy(item: JudgeItem) -> bool:
    """The prediction repeats the previous state although the real state changed."""
    if item.previous is None:
        return False
    previous = normalise_whitespace(item.previous)
    return normalise_whitespace(item.predicted) == previous != normalise_whitespace(item.reference)


def apply_caps(scores: dict[str, int], stale: bool) -> tuple[dict[str, int], list[str]]:
    """The web/os/android caps; returns the capped scores and the names of caps that bit."""
    capped, applied = dict(scores), []
    if stale and (capped["factuality"] > 2 or capped["quality"] > 2):
        capped["factuality"], capped["quality"] = (
            min(capped["factuality"], 2),
            min(capped["quality"], 2),
        )
        applied.append("stale_copy: factuality and quality <= 2")
    low = any(0 < capped[dim] <= 2 for dim in ("factuality", "consistency"))
    if low and capped["realism"] > 3:
        capped["realism"] = 3
        applied.append("realism <= 3 when factuality or consistency is 1-2")
    return capped, applied


def render_user_message(item: JudgeItem, max_history_chars: int = MAX_HISTORY_CHARS) -> str:
    """The judge's user message: context, diagnostics, simulated and real observation."""
    context = render_context(item.history, item.action, item.previous, max_history_chars)
    diagnostics = "(not available)"
    if item.diagnostics is not None:
        diagnostics = "\n".join(f"- {k}: {v}" for k, v in item.diagnostics.model_dump().items())
    return (
        f"{context}\n\n## Diagnostics of the simulator output\n{diagnostics}\n\n"
        f"## Simulated observation\n<simulated_observation>\n{item.predicted}\n"
        f"</simulated_observation>\n\n## Real observation\n<real_observation>\n{item.reference}\n"
        "</real_observation>"
    )


class Judge:
    """Grades predictions with any engine on the five-dimension rubric.

    Args:
        engine: the judge engine (any registered engine; a strong model in earnest).
        prompts: the judge prompt library (built-ins by default).
        params: sampling parameters of the judge; the temperature is stored with every score.
        retries: extra attempts for answers without a parsable evaluation.
        max_history_chars: history budget of the judge's message.
        official: the release's judge user template: judge as `eval.py judge` does, with the
            official judge prompts of `prompts` (every item then needs its `row`).
    """

    def __init__(
        self,
        engine: Engine,
        prompts: JudgePromptLibrary | None = None,
        params: SamplingParams = JUDGE_PARAMS,
        retries: int = 2,
        max_history_chars: int = MAX_HISTORY_CHARS,
        official: OfficialJudgeTemplate | None = None,
    ) -> None:
        self.engine = engine
        self.prompts = prompts or JudgePromptLibrary()
        self.params = params
        self.retries = retries
        self.max_history_chars = max_history_chars
        self.official = official

    def conversation(self, item: JudgeItem, prompt: JudgePrompt) -> list[ChatMessage]:
        """The messages that grade `item` under `prompt`, in this judge's mode.

        Raises:
            BadInputError: official mode, and the item has no row.
        """
        if self.official is None:
            return [
                ChatMessage(role="system", content=prompt.text),
                ChatMessage(role="user", content=render_user_message(item, self.max_history_chars)),
            ]
        if item.row is None:
            raise BadInputError("The official judge grades AgentWorldBench rows; this has none.")
        raw = item.predicted if item.raw_output is None else item.raw_output
        row = OfficialRow.model_validate(item.row)
        return judge_messages(row, raw, prompt.text, self.official.text)

    def evaluate(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        """Grade every item in one batched engine call (plus retries for unparsable answers)."""
        prompts = [
            self.prompts.official(item.domain) if self.official else self.prompts.get(item.domain)
            for item in items
        ]
        conversations = [
            self.conversation(item, prompt) for item, prompt in zip(items, prompts, strict=True)
        ]
        outcomes = ask_with_retries(
            self.engine,
            conversations,
            self.params,
            parse_final_evaluation,
            self.retries,
            echo=self.official is None,
        )
        results = []
        for item, prompt, outcome in zip(items, prompts, outcomes, strict=True):
            evaluation = outcome.value or Evaluation({d: 0 for d in DIMENSIONS}, [], [], False)
            scores = evaluation.scores
            applied: list[str] = []
            if prompt.caps and outcome.value is not None:
                scores, applied = apply_caps(scores, is_stale_copy(item))
            total = official_total(scores)
            results.append(
                JudgeResult(
                    scores=scores,
                    total=total,
                    score_100=to_100(total),
                    strengths=evaluation.strengths,
                    weaknesses=evaluation.weaknesses,
                    caps_applied=applied,
                    failed=outcome.value is None,
                    error=outcome.error,
                    attempts=outcome.attempts,
                    repaired=evaluation.repaired,
                    raw=outcome.text,
                    finish_reason=outcome.finish_reason,
                    judge_engine=self.engine.name,
                    judge_model=self.engine.model,
                    prompt_version=prompt.version,
                    temperature=self.params.temperature,
                )
            )
        return results


def judge_scores(result: JudgeResult) -> list[StoredScore]:
    """A verdict as scores named `judge.<dimension>` (1-5), for a recorder's `add_scores`.

    The version is the judge prompt version; judge engine, model, temperature, the strengths and
    weaknesses it named and the caps applied go in the details, since the judge dominates
    absolute numbers and its reasons are what a person compares with their own. A failed
    verdict gives no scores.
    """
    if result.failed:
        return []
    details = {
        "judge_engine": result.judge_engine,
        "judge_model": result.judge_model,
        "temperature": result.temperature,
        "total": result.total,
        "caps_applied": list(result.caps_applied),
        "strengths": list(result.strengths),
        "weaknesses": list(result.weaknesses),
    }
    return [
        StoredScore(f"{JUDGE_PREFIX}{dim}", result.prompt_version, float(value), details)
        for dim, value in result.scores.items()
        if value
    ]
