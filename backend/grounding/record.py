"""Answer from the record: where reality is already known, no model is asked.

A step whose (domain, normalised state before, canonical action) equals a real transition's has
a known answer: the real state that followed. The simulator answers such a step from that
transition (`answered_by="record"`, the transition as its provenance) instead of the model, as
StableToolBench's cache of real responses does. It answers only when every matching transition
agrees on what followed: an environment that answered the same step two ways is not
deterministic there, and the model is asked instead.

The leakage guard is the grounder's (`backend.grounding.leakage`): a transition of the request's
own recording, by id or by content, never answers it, so a benchmark item is never answered from
its own row, nor from a copy of it under another id. `awp bench` and training evaluation keep
the record off unless asked, so their figures measure the model.

Freshness costs one version query per domain per batch (`lookup_all`), as the grounder's does,
not one per step.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from backend.grounding.fingerprint import Key, record_key
from backend.grounding.leakage import Guard
from backend.grounding.transitions import Transition, TransitionSource
from backend.history import state_before
from backend.scoring.text import normalise_whitespace
from backend.types import SimRequest


@dataclass(frozen=True)
class _Book:
    version: Hashable
    transitions: list[Transition]
    entries: dict[Key, list[int]]
    guard: Guard


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
        transitions = self.source.transitions(domain)
        entries: dict[Key, list[int]] = {}
        for position, transition in enumerate(transitions):
            key = record_key(domain, transition.before, transition.action)
            entries.setdefault(key, []).append(position)
        built = _Book(version, transitions, entries, Guard(transitions))
        with self._lock:
            self._books[domain] = built
            self.builds += 1
        return built

    def lookup(self, request: SimRequest) -> Transition | None:
        """`lookup_all` of one request."""
        return self.lookup_all([request])[0]

    def lookup_all(self, requests: Sequence[SimRequest]) -> list[Transition | None]:
        """The real transition that answers each (canonical) request exactly, if the record has one.

        Each domain's book is checked for freshness once per call, so a batch of N steps costs
        one version query per domain, not N. An answer is None when nothing matches, when the
        matches disagree on what followed, or when the leakage guard hides them all.
        """
        books = {domain: self._book(domain) for domain in {r.domain for r in requests}}
        return [_answer(books[request.domain], request) for request in requests]


def _answer(book: _Book, request: SimRequest) -> Transition | None:
    """The book's exact answer to one request (see `RecordBook.lookup_all`)."""
    before = state_before(request.history, request.initial_state) or ""
    matches = book.entries.get((normalise_whitespace(before), request.action))
    if not matches:
        return None
    hidden = book.guard.hidden(request)
    found = [book.transitions[position] for position in matches if position not in hidden]
    if not found or len({normalise_whitespace(t.after) for t in found}) != 1:
        return None
    return found[-1]
