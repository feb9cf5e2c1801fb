"""The step core: (domain, prompt, history, action) -> chat messages -> engine -> prediction."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from backend.domains.base import PromptContext, get_domain
from backend.domains.prompts import PromptLibrary
from backend.domains.turns import format_assistant_turn, format_user_turn
from backend.engines.base import Engine
from backend.parsing import parse_output
from backend.types import (
    ChatMessage,
    ChatRequest,
    Completion,
    HistoryMode,
    Prediction,
    SimRequest,
    StreamChunk,
    Turn,
)


def history_observation(turn: Turn, mode: HistoryMode) -> str:
    """The observation a history turn shows the model under `mode`.

    Closed-loop history uses the model's own prediction; a turn that has none (a recorded prefix
    the session started from) shows the real observation, since nothing else exists for it.
    """
    if mode is HistoryMode.CLOSED_LOOP and turn.predicted is not None:
        return turn.predicted
    return turn.observation or ""


def build_messages(
    request: SimRequest, system_prompt: str, context: PromptContext | None = None
) -> list[ChatMessage]:
    """Lay out a request in the official chat layout.

    The system message holds the world-model prompt; each history turn is a user message (the
    action) and an assistant message (the observation); the last user message is the current
    action. The first user message carries `**Current State:**` when the state before it is
    known: the initial state, or in blind mode the last known observation. The official data does
    this for terminal; for web, os and android it is the only way the model sees the start page.
    """
    domain = get_domain(request.domain)
    action = domain.validate(request.action, context or PromptContext())
    blind = request.history_mode is HistoryMode.BLIND
    history = [] if blind else request.history
    first_index = len(request.history) - len(history) + 1
    known = [history_observation(turn, request.history_mode) for turn in request.history]
    state = known[-1] if blind and known else request.initial_state
    messages = [ChatMessage(role="system", content=system_prompt)]
    for offset, turn in enumerate(history):
        text = format_user_turn(first_index + offset, turn.action, state if offset == 0 else None)
        messages.append(ChatMessage(role="user", content=text))
        observation = history_observation(turn, request.history_mode)
        messages.append(ChatMessage(role="assistant", content=format_assistant_turn(observation)))
    current = format_user_turn(len(request.history) + 1, action, None if history else state)
    messages.append(ChatMessage(role="user", content=current))
    return messages


def to_prediction(completion: Completion) -> Prediction:
    """Apply the official output rules to an engine completion."""
    parsed = parse_output(completion.text, completion.reasoning)
    return Prediction(
        observation=parsed.observation,
        reasoning=parsed.reasoning,
        raw_text=completion.text,
        finish_reason=completion.finish_reason,
        prompt_tokens=completion.prompt_tokens,
        completion_tokens=completion.completion_tokens,
        latency_s=completion.latency_s,
        engine=completion.engine,
        model=completion.model,
        diagnostics=parsed.diagnostics,
    )


class Simulator:
    """Runs simulation steps on one engine with one prompt library.

    Args:
        engine: any registered engine.
        prompts: the system prompt library (built-ins, optionally overridden from a directory).
    """

    def __init__(self, engine: Engine, prompts: PromptLibrary) -> None:
        self.engine = engine
        self.prompts = prompts

    def prepare(self, request: SimRequest, context: PromptContext | None = None) -> ChatRequest:
        """Validate the action and build the engine request (no generation)."""
        context = context or PromptContext()
        system = request.system_prompt or self.prompts.system_prompt(request.domain, context)
        return ChatRequest(
            messages=build_messages(request, system, context),
            params=request.params,
            reference=request.reference,
        )

    def step(self, request: SimRequest, context: PromptContext | None = None) -> Prediction:
        """Predict the observation after `request.action`."""
        return self.step_batch([request], context)[0]

    def step_batch(
        self, requests: Sequence[SimRequest], context: PromptContext | None = None
    ) -> list[Prediction]:
        """Predict many steps in one engine call, so the engine can batch them."""
        chat = [self.prepare(request, context) for request in requests]
        return [to_prediction(completion) for completion in self.engine.generate(chat)]

    def stream(
        self, request: SimRequest, context: PromptContext | None = None
    ) -> Iterator[StreamChunk | Prediction]:
        """Yield streamed deltas, then the parsed Prediction as the last item."""
        for chunk in self.engine.stream(self.prepare(request, context)):
            if chunk.completion is not None:
                yield to_prediction(chunk.completion)
            else:
                yield chunk
