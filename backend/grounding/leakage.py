"""The one leakage guard: which real transitions a request must never see.

A step that is measured against a recording (a benchmark item, a training-evaluation item, a
rollout that follows a recording) must not be shown, as a demonstration or as the record's
answer, any transition of that recording: not its answer, not its past, not its future. The
grounder and the record both ask this guard, so they hide the same transitions. It finds them
two ways:

- by id: the transition belongs to a recording the request names (`SimRequest.grounding_exclude`);
- by content: the transition lies on the request's own path (`SimRequest.own_path`, the content
  fingerprints of its recording from the start, `backend.grounding.fingerprint`): it is one of
  those steps (the same step imported under another id, a duplicate row in a second file, a
  correction of the same step), or a later step of a recording that passed through the path's
  last step (its future, at or after its own turn).

A request with no own path (a live session, a free Playground step) is guarded by id alone: a
repeat of a step someone ran for real before is what the record is there to answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from backend.grounding.transitions import Transition
from backend.types import SimRequest


class Guard:
    """The leakage guard over one domain's transitions, by their positions in a list.

    Built with the grounder's index or the record's book (once per rebuild), so a request's
    hidden transitions cost dictionary lookups, not a pass over every transition.

    Args:
        transitions: the domain's transitions, in the order their positions refer to.
    """

    def __init__(self, transitions: Sequence[Transition]) -> None:
        self._recordings: dict[str, list[int]] = {}
        self._steps: dict[str, list[int]] = {}
        self._through: dict[str, list[int]] = {}
        for position, transition in enumerate(transitions):
            if transition.trajectory_id:
                self._recordings.setdefault(transition.trajectory_id, []).append(position)
            if transition.fingerprint is not None:
                self._steps.setdefault(transition.fingerprint, []).append(position)
            for fingerprint in transition.path:
                self._through.setdefault(fingerprint, []).append(position)

    def hidden(self, request: SimRequest) -> set[int]:
        """The positions of the transitions `request` must not see (see the module)."""
        found = {
            position
            for recording in request.grounding_exclude
            for position in self._recordings.get(recording, ())
        }
        for fingerprint in request.own_path:
            found.update(self._steps.get(fingerprint, ()))
        if request.own_path:
            found.update(self._through.get(request.own_path[-1], ()))
        return found
