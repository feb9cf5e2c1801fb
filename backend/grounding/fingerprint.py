"""Content fingerprints of steps: what makes two steps the same step, whatever their ids.

A step is its domain, its history prefix (the initial state, then each earlier action with the
real state after it) and its action. Ids cannot say that two steps are one: an import under a
renamed id, a duplicate row in a second file, a correction of a benchmark prediction and the
row it came from are all the same step under different names. Their fingerprints agree.

Each part is normalised as an exact record match compares it (`record_key`): states with their
whitespace normalised, actions in the domain's canonical text. A fingerprint is built
incrementally along a recording (`Prefix`): the hash of everything before an action, then of
that action, then of the state after it, so a recording's every step costs one hash of its own
parts, never a rehash of its history.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from backend.domains.base import get_domain
from backend.errors import AWPError
from backend.history import state_after
from backend.scoring.text import normalise_whitespace
from backend.types import PromptContext, Trajectory, Turn

Key = tuple[str, str]
"""(normalised state before, canonical action)."""


@lru_cache(maxsize=4096)
def canonical_action(domain: str, action: str) -> str:
    """A recorded action in the domain's canonical text (as recorded when it does not parse).

    Cached: the same actions recur along every recording and every request's history.
    """
    try:
        return get_domain(domain).validate(action, PromptContext())
    except AWPError:
        return action


def record_key(domain: str, before: str, action: str) -> Key:
    """What an exact match compares: the state with its whitespace normalised, the action."""
    return normalise_whitespace(before), canonical_action(domain, action)


def _digest(*parts: str) -> str:
    """A short hash of the parts, each length-prefixed so no two splits of a text collide."""
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


@dataclass(frozen=True)
class Prefix:
    """A recording up to just before its next action, as one hash.

    Attributes:
        domain: the domain name (actions are canonical in it).
        digest: the hash of the domain, the initial state and every earlier step.
    """

    domain: str
    digest: str

    @classmethod
    def start(cls, domain: str, initial_state: str | None) -> Prefix:
        """The prefix before a recording's first action."""
        return cls(domain, _digest(domain, normalise_whitespace(initial_state or "")))

    def fingerprint(self, action: str) -> str:
        """The fingerprint of the step that takes `action` from here."""
        return _digest(self.digest, canonical_action(self.domain, action))

    def after(self, fingerprint: str, state: str | None) -> Prefix:
        """The prefix after the step `fingerprint` (taken from here) led to `state`."""
        return Prefix(self.domain, _digest(fingerprint, normalise_whitespace(state or "")))


def turns_path(domain: str, initial_state: str | None, turns: Sequence[Turn]) -> tuple[str, ...]:
    """The fingerprint of each turn, each after the turns before it.

    The state after a turn is its real observation where known, else its prediction (what the
    session went on from, `backend.history.state_after`).
    """
    prefix = Prefix.start(domain, initial_state)
    found = []
    for turn in turns:
        fingerprint = prefix.fingerprint(turn.action)
        found.append(fingerprint)
        prefix = prefix.after(fingerprint, state_after(turn))
    return tuple(found)


def step_path(
    domain: str, initial_state: str | None, history: Sequence[Turn], action: str
) -> tuple[str, ...]:
    """The fingerprints of a step's path from its recording's start: its history, then itself."""
    return turns_path(domain, initial_state, [*history, Turn(action=action)])


def recording_path(trajectory: Trajectory) -> tuple[str, ...]:
    """The fingerprints of every step of a recording."""
    return turns_path(trajectory.domain, trajectory.initial_state, trajectory.turns)
