"""Answer from the record: where reality is already known, no model is asked.

A step whose (domain, normalised state before, canonical action) equals a real transition's has
a known answer: the real state that followed. The simulator answers such a step from that
transition (`answered_by="record"`, the transition as its provenance) instead of the model, as
StableToolBench's cache of real responses does. It answers only when every matching transition
agrees on what followed: an environment that answered the same step two ways is not
deterministic there, and the model is asked instead.

The leakage guard is the grounder's: a request's own recordings (`grounding_exclude`) are never
candidates, so a benchmark item is never answered from its own row. `awp bench` and training
evaluation keep the record off unless asked, so their figures measure the model.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from dataclasses import dataclass

from backend.domains.base import get_domain
from backend.errors import AWPError
from backend.grounding.transitions import Transition, TransitionSource
from backend.history import state_before
from backend.scoring.text import normalise_whitespace
from backend.types import PromptContext, SimRequest

Key = tuple[str, str]
"""(normalised state before, canonical action)."""


def canonical_action(domain: str, action: str) -> str:
    """A recorded action in the domain's canonical text (as recorded when it does not parse)."""
    try:
        return get_domain(domain).validate(action, PromptContext())
    except AWPError:
        return action


def record_key(domain: str, before: str, action: str) -> Key:
    """What an exact match compares: the state with its whitespace normalised, the action."""
    return normalise_whitespace(before), canonical_action(domain, action)


@dataclass(frozen=True)
class _Book:
    version: Hashable
    entries: dict[Key, list[Transition]]


class RecordBook:
    """Exact matches of steps in the real transitions of each domain.

    Fresh like the grounder: a domain's book is rebuilt when its source's version changes, so a
    live step stored a moment ago answers its repeat at once.

    Args:
        source: where real transitions are read.

    Attributes:
        builds: how many domain books were built (tests count them).
    """

    def __init__(self, source: TransitionSource) -> None:
        self.source = source
        self._books: dict[str, _Book] = {}
        self._lock = threading.Lock()
        self.builds = 0

    def _book(self, domain: str) -> _Book:
        version = self.source.version(domain)
        with self._lock:
            current = self._books.get(domain)
            if current is not None and current.version == version:
                return current
        entries: dict[Key, list[Transition]] = {}
        for transition in self.source.transitions(domain):
            key = record_key(domain, transition.before, transition.action)
            entries.setdefault(key, []).append(transition)
        built = _Book(version, entries)
        with self._lock:
            self._books[domain] = built
            self.builds += 1
        return built

    def lookup(self, request: SimRequest) -> Transition | None:
        """The real transition that answers a (canonical) request exactly, if the record has one.

        None when nothing matches, when the matches disagree on what followed, or when they
        all belong to the request's own recordings (the leakage guard).
        """
        before = state_before(request.history, request.initial_state) or ""
        key = normalise_whitespace(before), request.action
        excluded = set(request.grounding_exclude)
        found = [
            transition
            for transition in self._book(request.domain).entries.get(key, [])
            if transition.trajectory_id not in excluded
        ]
        if not found or len({normalise_whitespace(t.after) for t in found}) != 1:
            return None
        return found[-1]
