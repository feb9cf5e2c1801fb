"""Fitting examples into the token budget honestly: history goes first, the target never does.

A conversational prompt loses its oldest turns through the one history rule
(`backend.history.cut_history`), the rule the held-out benchmark items are cut by too: the chat
is read back into its request, cut, and laid out again by the simulator's message builder, so
the first kept turn shows the state before it and the turns are numbered as the benchmark and
the playground number them. A plain text keeps its end (where the target observation is). An
example that still does not fit, or a chat not in the official layout that is too long, is
dropped. Both are counted and reported.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from backend.benchmark.items import BenchItem
from backend.data.awb_layout import observation_text, parse_user_turn
from backend.errors import AWPError
from backend.history import cut_history
from backend.simulate import build_messages, canonical
from backend.training.examples import Example
from backend.types import HistoryMode, SamplingParams, SimRequest, Turn

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


def layout(request: SimRequest) -> list[dict[str, str]]:
    """The chat the simulator sends for a (canonical) request, as plain dicts."""
    return [m.model_dump() for m in build_messages(request, request.system_prompt or "")]


def chat_request(domain: str, prompt: list[dict[str, str]]) -> SimRequest | None:
    """The teacher-forced request a chat in the official layout was built from.

    Each history turn is read back as the observation it showed, so the request lays out the
    same chat whatever history mode made it. Returns None when `layout` of the request would not
    give `prompt` back exactly (another layout, or turns not numbered from 1): such a chat
    cannot be cut by the history rule.
    """
    users, answers = prompt[1::2], prompt[2::2]
    if len(prompt) % 2 or prompt[0]["role"] != "system":
        return None
    if any(m["role"] != "user" for m in users) or any(m["role"] != "assistant" for m in answers):
        return None
    try:
        parsed = [parse_user_turn(m["content"]) for m in users]
    except AWPError:
        return None
    history = [
        Turn(action=turn.action, observation=observation_text(shown["content"]))
        for turn, shown in zip(parsed, answers, strict=False)
    ]
    request = SimRequest(
        domain=domain,
        system_prompt=prompt[0]["content"],
        initial_state=parsed[0].current_state,
        history=history,
        action=parsed[-1].action,
    )
    return request if layout(request) == prompt else None


def fit_chat(
    tokenizer: Any, domain: str, columns: dict[str, Any], max_length: int, reserve: int
) -> tuple[dict[str, Any] | None, bool]:
    """Drop the oldest turns of `prompt` through the history rule until prompt and target fit.

    Args:
        tokenizer: the model's tokenizer (its chat template counts the tokens).
        domain: the example's domain.
        columns: a row with a conversational `prompt` (and completion/chosen/rejected).
        max_length: the token budget of prompt plus target.
        reserve: tokens kept free when the row has no target column (GRPO's generations).

    Returns:
        The row (a copy when cut), None when it cannot fit; and whether it was cut.
    """

    def size(prompt: list[dict[str, str]]) -> int:
        return _longest(tokenizer, prompt, columns) or count_tokens(tokenizer, prompt) + reserve

    if size(columns["prompt"]) <= max_length:
        return columns, False
    request = chat_request(domain, columns["prompt"])
    if request is None:
        return None, False
    chosen = cut_history(request, lambda r: size(layout(r)) <= max_length)
    if chosen is None:
        return None, bool(request.history)
    return {**columns, "prompt": layout(chosen)}, True


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
            columns, cut = fit_chat(tokenizer, example.domain, example.columns, max_length, reserve)
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


def fit_items(
    tokenizer: Any, items: Iterable[BenchItem], max_length: int
) -> tuple[list[BenchItem], FitReport]:
    """Held-out items under the training budget: the oldest turns leave the history first.

    The model is evaluated on prompts of the length it was trained on, before and after alike,
    cut by the same rule as its training prompts (`backend.history.cut_history`). Items whose
    action and system prompt alone exceed the budget are left out (counted). Items need their
    system prompt filled in (`TrainData` items have it).
    """
    report = FitReport()
    fitted: list[BenchItem] = []
    for item in items:
        try:
            request = canonical(item.request(SamplingParams(), HistoryMode.TEACHER_FORCED))
        except AWPError:
            request = None
        chosen = request and cut_history(
            request, lambda r: count_tokens(tokenizer, layout(r)) <= max_length
        )
        if chosen is None:
            report.dropped += 1
            report.by_domain_dropped[item.domain] = report.by_domain_dropped.get(item.domain, 0) + 1
            continue
        cut = len(chosen.history) < len(item.history)
        report.cut += cut
        report.kept += not cut
        fitted.append(
            item.model_copy(
                update={
                    "history": chosen.history,
                    "initial_state": chosen.initial_state,
                    # its recording's path from the start, which the cut history no longer shows
                    "own_path": chosen.own_path,
                }
            )
        )
    return fitted, report
