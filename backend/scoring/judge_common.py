"""What the rubric judge and the arena's judge vote share: the context message, the retries."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from backend.engines.base import Engine
from backend.errors import AWPError
from backend.scoring.judge_parse import JudgeParseError
from backend.types import ChatMessage, ChatRequest, SamplingParams, Turn

T = TypeVar("T")

MAX_HISTORY_CHARS = 30_000
"""History beyond this many characters is cut from the oldest turn on: judges see the recent
state, and MCP histories (59K tokens on average) would not fit a small judge's context."""
RETRY_ECHO_CHARS = 4_000
"""How much of an unparsable answer is shown back to the judge when asking again."""


def render_turns(turns: Sequence[Turn], max_chars: int) -> list[str]:
    """One block per turn, oldest first; the oldest are left out when they exceed `max_chars`."""
    blocks: list[str] = []
    used = 0
    for index in range(len(turns), 0, -1):
        turn = turns[index - 1]
        block = f"### Turn {index}\nAction:\n{turn.action}\nObservation:\n{turn.observation or ''}"
        if used + len(block) > max_chars:
            blocks.append(f"({index} earlier turn(s) omitted for length)")
            break
        blocks.append(block)
        used += len(block)
    return list(reversed(blocks))


def render_context(
    history: Sequence[Turn], action: str, previous: str | None, max_history_chars: int
) -> str:
    """The interaction so far and the current action, as the judge reads it."""
    blocks = render_turns(history, max_history_chars)
    parts = ["## History", *blocks] if history else ["## History", "(no earlier turns)"]
    if previous is not None and not history:
        parts += ["## State before the action", previous]
    parts += [f"## Current action (turn {len(history) + 1})", action]
    return "\n\n".join(parts)


@dataclass
class Outcome(Generic[T]):
    """The result of asking a judge until it answered parsably or the retries ran out."""

    value: T | None
    text: str
    finish_reason: str
    attempts: int
    error: str | None


def ask_with_retries(
    engine: Engine,
    conversations: Sequence[list[ChatMessage]],
    params: SamplingParams,
    parse: Callable[[str], T],
    retries: int,
    echo: bool = True,
) -> list[Outcome[T]]:
    """Send every conversation as one batch; re-ask only those whose answer did not parse.

    A retry shows the judge its unparsable answer and what was wrong (`echo`), which fixes most
    format slips; without `echo` it asks the same question again, as the official harness
    does. Engine errors (server down, prompt too long) count as a failed attempt of every
    item in the batch, so a judge failure is always recorded, never dropped.
    """
    chats = [list(conversation) for conversation in conversations]
    outcomes = [Outcome[T](None, "", "", 0, "not attempted") for _ in chats]
    pending = list(range(len(chats)))
    for _ in range(1 + max(0, retries)):
        if not pending:
            break
        requests = [ChatRequest(messages=chats[i], params=params) for i in pending]
        try:
            completions = engine.generate(requests)
        except AWPError as exc:
            for i in pending:
                outcomes[i].attempts += 1
                outcomes[i].error = f"engine error: {exc}"
            continue
        still: list[int] = []
        for i, completion in zip(pending, completions, strict=True):
            text = f"{completion.reasoning}\n{completion.text}".strip()
            outcome = outcomes[i]
            outcome.attempts += 1
            outcome.text, outcome.finish_reason = completion.text, completion.finish_reason
            try:
                outcome.value, outcome.error = parse(text), None
            except JudgeParseError as exc:
                outcome.error = str(exc)
                if echo:
                    chats[i] += [
                        ChatMessage(role="assistant", content=completion.text[-RETRY_ECHO_CHARS:]),
                        ChatMessage(
                            role="user", content=f"{exc} Answer again, ending as instructed."
                        ),
                    ]
                still.append(i)
        pending = still
    return outcomes
