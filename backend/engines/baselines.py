"""Two reference engines for benchmarks: `persistence` (nothing changes) and `oracle` (the truth).

A world model should beat persistence, which copies the previous observation; the oracle returns
the recorded observation and so checks that a metric gives full marks to a perfect prediction.
Both are named as baselines (`baseline:...` model, `baseline` finish reason) so that no table can
mistake them for a model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from backend.engines.base import ENGINES, NO_CAPABILITIES, EngineConfig, EngineSpec
from backend.errors import EngineRequestError
from backend.types import ChatRequest, Completion, StreamChunk

STATE_HEADER = "**Current State:**\n"
ACTION_HEADER = "**Action:**"


def previous_observation(request: ChatRequest) -> str:
    """The observation before the current action, as the chat shows it.

    That is the last assistant message; with no history, the `**Current State:**` block of the
    first user message (terminal sessions carry the screen there); otherwise nothing.
    """
    for message in reversed(request.messages):
        if message.role == "assistant":
            return message.content
    first_user = next((m.content for m in request.messages if m.role == "user"), "")
    if STATE_HEADER not in first_user:
        return ""
    state = first_user.split(STATE_HEADER, 1)[1]
    return state.rsplit(ACTION_HEADER, 1)[0].strip("\n")


def reference_observation(request: ChatRequest) -> str:
    """The recorded observation the request carries.

    Raises:
        EngineRequestError: the request has no recorded observation to return.
    """
    if request.reference is None:
        raise EngineRequestError(
            "The oracle baseline needs the recorded observation, and this step has none; "
            "use it on recorded trajectories only."
        )
    return request.reference


class BaselineEngine:
    """An engine whose prediction is a fixed function of the request; no model, no latency.

    Args:
        name: the registry name, also shown as `baseline:<name>`.
        predict: maps a request to the predicted observation text.

    What it can do is its registration's (`Capabilities`): the oracle's says it answers with
    the reference, so a live environment acts first for it.
    """

    def __init__(self, name: str, predict: Callable[[ChatRequest], str]) -> None:
        self.name = name
        self.model = f"baseline:{name}"
        self._predict = predict

    def generate(self, requests: Sequence[ChatRequest]) -> list[Completion]:
        """Predict every request."""
        return [self._complete(request) for request in requests]

    def stream(self, request: ChatRequest) -> Iterator[StreamChunk]:
        """Yield the whole prediction as one delta, then the Completion."""
        completion = self._complete(request)
        yield StreamChunk(content_delta=completion.text)
        yield StreamChunk(completion=completion)

    def close(self) -> None:
        """Nothing to release."""

    def _complete(self, request: ChatRequest) -> Completion:
        return Completion(
            text=self._predict(request),
            finish_reason="baseline",
            engine=self.name,
            model=self.model,
        )


def _persistence(config: EngineConfig) -> BaselineEngine:
    return BaselineEngine("persistence", previous_observation)


def _oracle(config: EngineConfig) -> BaselineEngine:
    return BaselineEngine("oracle", reference_observation)


# Baselines load nothing and answer at once: no streaming, batching or token log-probabilities.
_BASELINE = NO_CAPABILITIES
ENGINES.register("persistence", EngineSpec(_persistence, _BASELINE, baseline=True))
ENGINES.register(
    "oracle",
    EngineSpec(_oracle, replace(_BASELINE, answers_with_reference=True), baseline=True),
)
