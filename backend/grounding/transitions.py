"""What grounding retrieves: real transitions, and the protocol storage serves them through.

A transition is one real step: the state before an action, the action, and the real state after
it. Only reality is a transition: a recorded or live turn whose observation is known, or an
annotator's correction. A model's prediction never is, so a model is never grounded in its own
guesses. The backend never touches SQL; `storage.transitions.TransitionStore` implements
`TransitionSource`.

Each transition carries its path: the content fingerprints of its recording's steps from the
start up to itself (`backend.grounding.fingerprint`), which the leakage guard
(`backend.grounding.leakage`) compares with a request's own path.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Protocol

from backend.grounding.fingerprint import recording_path
from backend.provenance import Provenance
from backend.sources import fingerprinted, turn_provenance
from backend.types import Trajectory


@dataclass(frozen=True)
class Transition:
    """One real step.

    Attributes:
        ref: where it comes from, as provenance: `<trajectory id>#<turn>` (turns numbered from
            1, like benchmark item ids) or `annotation:<id>`.
        domain: the domain name.
        before: the state before the action ("" when unknown).
        action: the action.
        after: the real state after the action.
        trajectory_id: the recording it belongs to (an annotation: its session's base
            recording), which the leakage guard excludes; None when it belongs to none.
        path: the content fingerprints of its recording's steps from the start, itself last
            (`backend.grounding.fingerprint`); empty when unknown (the guard then has its id).
        provenance: where `after` came from (`backend.provenance`): the turn's own source, or
            the correction's; what a record answer stores as its prediction's provenance.
    """

    ref: str
    domain: str
    before: str
    action: str
    after: str
    trajectory_id: str | None
    path: tuple[str, ...] = ()
    provenance: Provenance | None = None

    @property
    def fingerprint(self) -> str | None:
        """Its own step's content fingerprint (None when its path is unknown)."""
        return self.path[-1] if self.path else None


def own_recording(*trajectory_ids: str | None) -> tuple[str, ...]:
    """A request's `grounding_exclude`: the recordings it belongs to (those that are known)."""
    return tuple(dict.fromkeys(t for t in trajectory_ids if t))


def turn_ref(trajectory_id: str, index: int) -> str:
    """The provenance id of a trajectory's 0-based turn `index`."""
    return f"{trajectory_id}#{index + 1}"


def trajectory_transitions(trajectory: Trajectory) -> list[Transition]:
    """The real transitions of a recording: each turn whose state before and after are real.

    A turn after one whose real observation is unknown (a step typed off a recording, answered
    only by a prediction) is skipped: its state before would be a model's guess.
    """
    found = []
    before: str | None = trajectory.initial_state or ""
    path = recording_path(trajectory)
    for index, turn in enumerate(trajectory.turns):
        if turn.observation is not None and before is not None:
            found.append(
                Transition(
                    turn_ref(trajectory.id, index),
                    trajectory.domain,
                    before,
                    turn.action,
                    turn.observation,
                    trajectory.id,
                    path=path[: index + 1],
                    provenance=fingerprinted(turn_provenance(trajectory, index), path[index]),
                )
            )
        before = turn.observation
    return found


class TransitionSource(Protocol):
    """Where the real transitions of a domain are read, at retrieval time."""

    def version(self, domain: str) -> Hashable:
        """A cheap value that changes whenever the domain's transitions change."""
        ...

    def transitions(self, domain: str) -> list[Transition]:
        """Every real transition of `domain`."""
        ...


class FixedTransitions:
    """A source over transitions given up front (the benchmark script and pure tests).

    Args:
        transitions: the transitions, of any domains.
    """

    def __init__(self, transitions: list[Transition]) -> None:
        self._transitions = list(transitions)

    def version(self, domain: str) -> Hashable:
        """Never changes: the transitions were given once."""
        return len(self._transitions)

    def transitions(self, domain: str) -> list[Transition]:
        """The given transitions of `domain`."""
        return [t for t in self._transitions if t.domain == domain]
