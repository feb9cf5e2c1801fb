"""The step core: a self-contained request -> chat messages -> engine -> parsed prediction.

The action is checked once, in `canonical`; everything after works on its canonical text, and
every prediction carries that text and the exact messages the engine received.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from backend.domains.base import get_domain
from backend.domains.prompts import PromptLibrary
from backend.domains.turns import format_assistant_turn, format_user_turn
from backend.engines.base import Engine
from backend.history import shown_observation, state_before
from backend.parsing import parse_output
from backend.types import (
    ChatMessage,
    ChatRequest,
    Completion,
    HistoryMode,
    Prediction,
    SimRequest,
    StreamChunk,
)


def canonical(request: SimRequest) -> SimRequest:
    """Check the action against its domain (and the request's tools); a copy in canonical text.

    Raises:
        BadActionError: the action does not follow the domain's format.
        UnknownNameError: no such domain.
    """
    action = get_domain(request.domain).validate(request.action, request.context)
    return request if action == request.action else request.model_copy(update={"action": action})


def build_messages(request: SimRequest, system_prompt: str) -> list[ChatMessage]:
    """Lay out a (canonical) request in the official chat layout.

    The system message holds the world-model prompt; each history turn is a user message (the
    action) and an assistant message (what `backend.history` says the turn shows); the last user
    message is the current action. The first user message carries `**Current State:**` when the
    state before it is known: the initial state, or in blind mode the last known state. The
    official data does this for terminal; for web, os and android it is the only way the model
    sees the start page.
    """
    blind = request.history_mode is HistoryMode.BLIND
    history = [] if blind else request.history
    first_index = len(request.history) - len(history) + 1
    state = state_before(request.history, request.initial_state) if blind else request.initial_state
    messages = [ChatMessage(role="system", content=system_prompt)]
    for offset, turn in enumerate(history):
        text = format_user_turn(first_index + offset, turn.action, state if offset == 0 else None)
        messages.append(ChatMessage(role="user", content=text))
        observation = shown_observation(turn, request.history_mode)
        messages.append(ChatMessage(role="assistant", content=format_assistant_turn(observation)))
    current = format_user_turn(len(request.history) + 1, request.action, None if history else state)
    messages.append(ChatMessage(role="user", content=current))
    return messages


def to_prediction(completion: Completion, request: ChatRequest, action: str) -> Prediction:
    """Apply the official output rules to an engine completion, keeping what was asked."""
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
        action=action,
        messages=request.messages,
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

    def system_prompt(self, request: SimRequest) -> str:
        """The request's own system prompt, else its domain's filled from its context."""
        return request.system_prompt or self.prompts.system_prompt(request.domain, request.context)

    def prepare(self, request: SimRequest) -> tuple[SimRequest, ChatRequest]:
        """Check the action and build the engine request (no generation).

        Returns:
            The request in canonical text, and the chat request for the engine.

        Raises:
            BadActionError: the action does not follow the domain's format (nothing is sent).
        """
        request = canonical(request)
        chat = ChatRequest(
            messages=build_messages(request, self.system_prompt(request)),
            params=request.params,
            reference=request.reference,
        )
        return request, chat

    def step(self, request: SimRequest) -> Prediction:
        """Predict the observation after `request.action`."""
        return self.step_batch([request])[0]

    def step_batch(self, requests: Sequence[SimRequest]) -> list[Prediction]:
        """Predict many steps in one engine call, so the engine can batch them."""
        prepared = [self.prepare(request) for request in requests]
        completions = self.engine.generate([chat for _, chat in prepared])
        return [
            to_prediction(completion, chat, request.action)
            for (request, chat), completion in zip(prepared, completions, strict=True)
        ]

    def stream(self, request: SimRequest) -> Iterator[StreamChunk | Prediction]:
        """Yield streamed deltas, then the parsed Prediction as the last item."""
        request, chat = self.prepare(request)
        for chunk in self.engine.stream(chat):
            if chunk.completion is not None:
                yield to_prediction(chunk.completion, chat, request.action)
            else:
                yield chunk
