"""The one history rule: what a history turn shows the model, and the state before an action.

Every place that rebuilds a prompt or needs "the state before the action" (the step core, the
Playground, stored sessions, exports, annotation, benchmarks, training data) asks here, so that
what is exported or scored is what the model was shown.

A turn holds the real observation after its action (None when nobody knows it: a step typed off
a recording) and the model's prediction for it (None for recorded turns). The rule:

- teacher_forced shows the real observation; where reality is unknown, the prediction stood in
  for it (that is what the session went on from), so it shows the prediction;
- closed_loop shows the model's own prediction; a recorded turn without one shows reality;
- blind shows no history; the state before the action is then the last known state.
"""

from __future__ import annotations

from collections.abc import Sequence

from backend.types import HistoryMode, Turn


def state_after(turn: Turn) -> str | None:
    """The best-known state after a turn: the real observation, else the prediction."""
    return turn.observation if turn.observation is not None else turn.predicted


def shown_observation(turn: Turn, mode: HistoryMode) -> str:
    """The observation a history turn shows the model under `mode` ("" when none is known)."""
    if mode is HistoryMode.CLOSED_LOOP and turn.predicted is not None:
        return turn.predicted
    return state_after(turn) or ""


def state_before(history: Sequence[Turn], initial_state: str | None) -> str | None:
    """The state just before the next action: after the last turn, else the initial state."""
    return state_after(history[-1]) if history else initial_state
