r"""Reading judge answers: the `<final_evaluation>` JSON of the rubric and the `\\boxed{}` choice.

Judge models are sloppy in predictable ways: the JSON arrives fenced or bare, with trailing
commas, with scores as strings ("4", "4/5") or out of range, with the closing tag missing after
a long answer, or after a thinking block that itself contains draft evaluations. Each of those
is repaired here; what cannot be repaired raises JudgeParseError so the caller can retry and
count the failure instead of dropping it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from backend.errors import BadInputError
from backend.parsing import strip_thinking

DIMENSIONS = ("format", "factuality", "consistency", "realism", "quality")
SCORE_MIN, SCORE_MAX = 1, 5

_OPEN, _CLOSE = "<final_evaluation>", "</final_evaluation>"
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_LOOSE_SCORE = r"[\"']?{}[\"']?\s*[:=]\s*[\"']?(-?\d+(?:\.\d+)?)"
_BOXED = re.compile(r"\\boxed\{\s*(?:\\text(?:bf)?\{)?\s*([AB])\b")


class JudgeParseError(BadInputError):
    """A judge answer holds no usable evaluation; the message says what was missing."""


@dataclass(frozen=True)
class Evaluation:
    """A parsed rubric evaluation: five scores (0 = the judge gave none) and its comments."""

    scores: dict[str, int]
    strengths: list[str]
    weaknesses: list[str]
    repaired: bool


def _block(text: str) -> str:
    """The content of the last `<final_evaluation>` block (an unclosed one runs to the end)."""
    start = text.rfind(_OPEN)
    if start < 0:
        return text
    body = text[start + len(_OPEN) :]
    return body.split(_CLOSE, 1)[0]


def _json_object(text: str) -> tuple[dict[str, Any] | None, bool]:
    """The outermost JSON object in `text`, repairing fences and trailing commas."""
    fences = _FENCE.findall(text)
    candidate = fences[-1] if fences else text
    start, end = candidate.find("{"), candidate.rfind("}")
    if start < 0 or end < start:
        return None, False
    raw = candidate[start : end + 1]
    for attempt, repaired in ((raw, False), (_TRAILING_COMMA.sub(r"\1", raw), True)):
        try:
            data = json.loads(attempt)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(data, dict):
            return data, repaired
    return None, False


def clamp_score(value: Any) -> int:
    """A judge score as an int in 1-5 ("4/5" -> 4, 7 -> 5, 0.2 -> 1); 0 when there is none."""
    if isinstance(value, bool) or value is None:
        return 0
    match = _NUMBER.search(str(value))
    if match is None:
        return 0
    return min(SCORE_MAX, max(SCORE_MIN, round(float(match.group()))))


def _comments(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(item) for item in value]
    return [str(value)] if value else []


def parse_final_evaluation(text: str) -> Evaluation:
    """Extract the rubric scores from a judge answer.

    Raises:
        JudgeParseError: no score for any of the five dimensions could be found.
    """
    answer, _ = strip_thinking(text)
    # A block left inside an unclosed <think> (budget ran out) is still the judge's answer.
    block = _block(answer if _OPEN in answer or _OPEN not in text else text)
    data, repaired = _json_object(block)
    if data is not None:
        lowered = {str(k).lower(): v for k, v in data.items()}
        source = lowered.get("scores", lowered)
        if isinstance(source, dict):
            source = {str(k).lower(): v for k, v in source.items()}
            scores = {dim: clamp_score(source.get(dim)) for dim in DIMENSIONS}
            if any(scores.values()):
                return Evaluation(
                    scores=scores,
                    strengths=_comments(lowered.get("strengths")),
                    weaknesses=_comments(lowered.get("weaknesses")),
                    repaired=repaired,
                )
    loose = {dim: re.findall(_LOOSE_SCORE.format(dim), block, re.IGNORECASE) for dim in DIMENSIONS}
    scores = {dim: clamp_score(found[-1]) if found else 0 for dim, found in loose.items()}
    if any(scores.values()):
        return Evaluation(scores=scores, strengths=[], weaknesses=[], repaired=True)
    raise JudgeParseError(
        "The judge answer has no <final_evaluation> JSON with scores for "
        + ", ".join(DIMENSIONS)
        + "."
    )


def parse_boxed_choice(text: str) -> str:
    r"""The last `\\boxed{A}` or `\\boxed{B}` of a pairwise answer.

    Raises:
        JudgeParseError: the answer chooses neither A nor B.
    """
    answer, _ = strip_thinking(text)
    choices = _BOXED.findall(answer) or _BOXED.findall(text)
    if not choices:
        raise JudgeParseError("The judge answer has no \\boxed{A} or \\boxed{B}.")
    return str(choices[-1])
