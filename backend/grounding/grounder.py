"""Retrieval per step: the k real transitions most like this step, within a token budget.

The `Simulator` holds a grounder (the composition root gives it one, or none for the official
prompt) and fills each request's `PromptContext.demonstrations` from it, so every edge that
steps through the simulator is grounded the same way.

Freshness: the index of a domain is rebuilt when its source's `version` changes, and the
version is read at every retrieval (one aggregate query per domain per batch), so a live step
or a correction stored a moment ago is retrieved by the very next step, with no rebuild command.

Leakage: the one guard (`backend.grounding.leakage`) hides from a request every transition of
its own recording, by id (`SimRequest.grounding_exclude`) and by content (`SimRequest.own_path`),
so no step is shown its own answer or its own future, whatever id its recording was stored under.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from backend.errors import BadInputError
from backend.grounding.leakage import Guard
from backend.grounding.similarity import METHODS, SimilarityIndex
from backend.grounding.transitions import Transition, TransitionSource
from backend.history import state_before
from backend.types import SimRequest

CHARS_PER_TOKEN = 4
"""Tokens are estimated as characters / 4: no tokenizer, so one budget means the same everywhere."""

DEFAULT_METHOD = "tfidf_char_action"
"""The similarity chosen by measurement (`benchmarks/bench_grounding.py`; the manual's Results)."""

SHOWN_STATE_CHARS = 1000
"""How much of a demonstration's state before (its end) the prompt shows."""

HEADER = (
    "Real transitions recorded in this environment, the most similar to the current step first. "
    "They show how this environment really responds; answer the current step from its own "
    "history."
)


@dataclass(frozen=True)
class Grounding:
    """What grounding adds to one request: the demonstrations text and where each came from."""

    demonstrations: str | None = None
    refs: tuple[str, ...] = ()


def estimate_tokens(text: str) -> int:
    """The token estimate of `text` (`CHARS_PER_TOKEN` characters per token, rounded up)."""
    return -(-len(text) // CHARS_PER_TOKEN)


def demonstration(number: int, transition: Transition) -> str:
    """One transition as the prompt shows it."""
    before = transition.before
    if len(before) > SHOWN_STATE_CHARS:
        before = "..." + before[-SHOWN_STATE_CHARS:]
    return (
        f"### Real step {number}\nState before:\n{before or '(none)'}\n"
        f"Action:\n{transition.action}\nObservation after it:\n{transition.after}"
    )


@dataclass(frozen=True)
class _DomainIndex:
    version: Hashable
    transitions: list[Transition]
    index: SimilarityIndex
    guard: Guard


class Grounder:
    """Retrieves real transitions for simulation requests.

    Args:
        source: where real transitions are read (storage, or given transitions).
        k: the most demonstrations per step.
        max_tokens: the demonstrations' token budget (estimated, see `estimate_tokens`).
        method: the similarity method's registered name.

    Attributes:
        builds: how many domain indexes were built so far (freshness costs a rebuild only
            after a write; tests and benchmarks count them).

    Raises:
        BadInputError: k or the budget is below 1.
        UnknownNameError: no such similarity method.
    """

    def __init__(
        self, source: TransitionSource, k: int, max_tokens: int, method: str = DEFAULT_METHOD
    ) -> None:
        if k < 1 or max_tokens < 1:
            raise BadInputError(f"Grounding needs k >= 1 and a budget >= 1, not {k}, {max_tokens}.")
        self.source = source
        self.k = k
        self.max_tokens = max_tokens
        self.method = METHODS.get(method)
        self._indexes: dict[str, _DomainIndex] = {}
        self._lock = threading.Lock()
        self.builds = 0

    def _index(self, domain: str) -> _DomainIndex:
        version = self.source.version(domain)
        with self._lock:
            current = self._indexes.get(domain)
            if current is not None and current.version == version:
                return current
        transitions = self.source.transitions(domain)
        built = _DomainIndex(
            version,
            transitions,
            self.method.index([(t.before, t.action) for t in transitions]),
            Guard(transitions),
        )
        with self._lock:
            self._indexes[domain] = built
            self.builds += 1
        return built

    def neighbours(
        self, request: SimRequest, index: _DomainIndex | None = None
    ) -> list[Transition]:
        """Every candidate transition for `request`, most similar first (similarity above 0).

        What the leakage guard hides from the request is never a candidate.
        """
        found = index or self._index(request.domain)
        before = state_before(request.history, request.initial_state) or ""
        hidden = found.guard.hidden(request)
        scored = [
            (score, position)
            for position, score in enumerate(found.index.scores(before, request.action))
            if score > 0 and position not in hidden
        ]
        scored.sort(key=lambda pair: (-pair[0], pair[1]))
        return [found.transitions[position] for _, position in scored]

    def ground(self, requests: Sequence[SimRequest]) -> list[Grounding]:
        """The grounding of each request: its k nearest real transitions that fit the budget.

        Each domain's index is checked for freshness once per call, so a batch of N steps costs
        one version query per domain, not N.
        """
        indexes = {domain: self._index(domain) for domain in {r.domain for r in requests}}
        return [self._grounding(request, indexes[request.domain]) for request in requests]

    def _grounding(self, request: SimRequest, index: _DomainIndex) -> Grounding:
        budget = self.max_tokens - estimate_tokens(HEADER)
        parts: list[str] = []
        refs: list[str] = []
        for transition in self.neighbours(request, index):
            text = demonstration(len(parts) + 1, transition)
            cost = estimate_tokens("\n\n" + text)
            if cost > budget:
                continue
            parts.append(text)
            refs.append(transition.ref)
            budget -= cost
            if len(parts) == self.k:
                break
        if not parts:
            return Grounding()
        return Grounding("\n\n".join([HEADER, *parts]), tuple(refs))
