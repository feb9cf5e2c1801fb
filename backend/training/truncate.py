"""Fitting examples into the token budget honestly: history goes first, the target never does.

A conversational prompt loses its oldest (action, observation) pairs, keeping the system prompt
and the current action; a plain text keeps its end (where the target observation is). An
example that still does not fit is dropped. Both are counted and reported.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from backend.benchmark.items import BenchItem
from backend.errors import AWPError
from backend.history import state_before
from backend.simulate import build_messages, canonical
from backend.training.examples import Example
from backend.types import HistoryMode, SamplingParams

TARGET_COLUMNS = ("completion", "chosen", "rejected")


@dataclass
class FitReport:
    """What fitting did: examples kept as they were, cut, or dropped (they cannot fit)."""

    kept: int = 0
    cut: int = 0
    dropped: int = 0
    by_domain_dropped: dict[str, int] = field(default_factory=dict)


def count_tokens(tokenizer: Any, messages: list[dict[str, str]]) -> int:
    """Tokens of a chat through the model's own template."""
    text = tokenizer.apply_chat_template(messages, tokenize=False)
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def _longest(tokenizer: Any, prompt: list[dict[str, str]], columns: dict[str, Any]) -> int:
    targets = [columns[name] for name in TARGET_COLUMNS if isinstance(columns.get(name), list)]
    return max((count_tokens(tokenizer, [*prompt, *target]) for target in targets), default=0)


def fit_chat(
    tokenizer: Any, columns: dict[str, Any], max_length: int, reserve: int
) -> tuple[dict[str, Any] | None, bool]:
    """Drop the oldest history pairs of `prompt` until prompt and target fit.

    Args:
        tokenizer: the model's tokenizer (its chat template counts the tokens).
        columns: a row with a conversational `prompt` (and completion/chosen/rejected).
        max_length: the token budget of prompt plus target.
        reserve: tokens kept free when the row has no target column (GRPO's generations).

    Returns:
        The row (a copy when cut), None when even no history does not fit; and whether it was cut.
    """
    prompt = list(columns["prompt"])
    # [system, user, assistant, ..., user]: history pairs sit between the system and the action.
    start = 1 if prompt and prompt[0]["role"] == "system" else 0
    pairs = (len(prompt) - start - 1) // 2

    def fits(dropped: int) -> bool:
        kept = prompt[:start] + prompt[start + 2 * dropped :]
        size = _longest(tokenizer, kept, columns) or count_tokens(tokenizer, kept) + reserve
        return size <= max_length

    if fits(0):
        return columns, False
    if not fits(pairs):
        return None, pairs > 0
    low, high = 0, pairs  # fits(high) holds, fits(low) does not: find the fewest pairs to drop
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if fits(middle) else (middle, high)
    return {**columns, "prompt": prompt[:start] + prompt[start + 2 * high :]}, True


def fit_text(tokenizer: Any, text: str, max_length: int) -> tuple[str, bool]:
    """Keep the last `max_length` tokens of a plain text (its end holds the target)."""
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    if len(ids) <= max_length:
        return text, False
    return tokenizer.decode(ids[-max_length:]), True


def fit_examples(
    tokenizer: Any, examples: Iterable[Example], max_length: int, reserve: int = 0
) -> tuple[list[Example], FitReport]:
    """Fit every example; returns those that fit and what was done."""
    report = FitReport()
    fitted: list[Example] = []
    for example in examples:
        columns: dict[str, Any] | None
        if isinstance(example.columns.get("text"), str):
            text, cut = fit_text(tokenizer, example.columns["text"], max_length)
            columns = {**example.columns, "text": text}
        else:
            columns, cut = fit_chat(tokenizer, example.columns, max_length, reserve)
        if columns is None:
            report.dropped += 1
            report.by_domain_dropped[example.domain] = (
                report.by_domain_dropped.get(example.domain, 0) + 1
            )
            continue
        report.cut += cut
        report.kept += not cut
        fitted.append(replace(example, columns=columns))
    return fitted, report


def _prompt_tokens(tokenizer: Any, item: BenchItem) -> int:
    request = canonical(item.request(SamplingParams(), HistoryMode.TEACHER_FORCED))
    messages = build_messages(request, item.system_prompt or "")
    return count_tokens(tokenizer, [m.model_dump() for m in messages])


def fit_items(
    tokenizer: Any, items: Iterable[BenchItem], max_length: int
) -> tuple[list[BenchItem], FitReport]:
    """Held-out items under the training budget: the oldest turns leave the history first.

    The model is evaluated on prompts of the length it was trained on, before and after alike;
    the dropped turns' last state becomes the item's initial state, as the one history rule
    has it. Items whose action and system prompt alone exceed the budget are left out (counted).
    Items need their system prompt filled in (`TrainData` items have it).
    """
    report = FitReport()
    fitted: list[BenchItem] = []
    for item in items:
        try:
            candidates = [
                item.model_copy(
                    update={
                        "history": item.history[dropped:],
                        "initial_state": state_before(item.history[:dropped], item.initial_state),
                    }
                )
                for dropped in range(len(item.history) + 1)
            ]
            chosen = next(
                (c for c in candidates if _prompt_tokens(tokenizer, c) <= max_length), None
            )
        except AWPError:
            chosen = None
        if chosen is None:
            report.dropped += 1
            report.by_domain_dropped[item.domain] = report.by_domain_dropped.get(item.domain, 0) + 1
            continue
        cut = len(chosen.history) < len(item.history)
        report.cut += cut
        report.kept += not cut
        fitted.append(chosen)
    return fitted, report
