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

A prompt too long for a token budget loses its oldest turns by the same rule (`cut_history`):
the state after the dropped turns becomes the initial state, so the first kept turn shows it as
its current state and the turns are numbered from 1, as if the recording started there. The
training data, the held-out benchmark and the step path (`fit_context`, for an engine that knows
its context) all cut this way, so a model is trained on the layout it is evaluated and served on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from backend.types import HistoryMode, SimRequest, Turn


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


def drop_oldest(request: SimRequest, dropped: int) -> SimRequest:
    """The request without its `dropped` oldest turns; the state after them becomes the start."""
    if dropped == 0:
        return request
    return request.model_copy(
        update={
            "history": request.history[dropped:],
            "initial_state": state_before(request.history[:dropped], request.initial_state),
        }
    )


def cut_history(request: SimRequest, fits: Callable[[SimRequest], bool]) -> SimRequest | None:
    """The request with the fewest oldest turns dropped (`drop_oldest`) for which `fits` holds.

    A prompt only shrinks as turns leave (a dropped turn's state was already shown), so a binary
    search finds the cut with a logarithmic number of `fits` calls (each may tokenize a prompt).

    Returns:
        The request itself when it fits, a cut copy, or None when even no history does not fit.
    """
    if fits(request):
        return request
    low, high = 0, len(request.history)  # fits(low) fails; find the fewest drops that fit
    if high == 0 or not fits(drop_oldest(request, high)):
        return None
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if fits(drop_oldest(request, middle)) else (middle, high)
    return drop_oldest(request, high)


def fit_context(
    request: SimRequest, tokens: Callable[[SimRequest], int], context: int, budget: int
) -> SimRequest:
    """The request cut (`cut_history`) so that its prompt and output fit a model's context.

    First the prompt and its whole output budget must fit; when even no history leaves that
    much room, the prompt must leave at least one token of output (the engine then shortens
    the answer, as it does for any prompt near its limit) and the fewest turns are dropped for
    that. When not even that fits, the request is returned as it is, so the engine refuses it
    with its own clear `PromptTooLongError`: cutting cannot save it, and nothing else is cut.

    Args:
        request: the request as it would be sent (its demonstrations, if any, already chosen).
        tokens: the prompt tokens the engine would send for a request.
        context: the model's context length (prompt and output together).
        budget: the request's output budget (its `max_new_tokens`).

    Returns:
        The request itself, or a copy without its oldest turns.
    """

    def room_for(output: int) -> Callable[[SimRequest], bool]:
        return lambda candidate: tokens(candidate) + output <= context

    for output in dict.fromkeys((budget, 1)):
        chosen = cut_history(request, room_for(output))
        if chosen is not None:
            return chosen
    return request
