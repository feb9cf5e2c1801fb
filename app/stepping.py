"""Simulate-and-record: one step through the simulator, scored, committed to SQL as it happens.

The CLI and the UI share this, so that every step either makes is stored the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from backend.domains.base import PromptContext, get_domain
from backend.scoring import MetricResult, score_observation
from backend.simulate import Simulator
from backend.types import Prediction, SimRequest, StreamChunk
from storage.sessions import SessionStore

RECORDED = "recorded"


@dataclass(frozen=True)
class StepOutcome:
    """A stored step: the prediction, its scores and the ids it was stored under."""

    prediction: Prediction
    scores: list[MetricResult]
    session_id: int
    step_id: int
    prediction_id: int | None


def previous_observation(request: SimRequest) -> str | None:
    """The real state before the action (for change metrics): last observation or initial state."""
    known = [turn.observation for turn in request.history if turn.observation is not None]
    return known[-1] if known else request.initial_state


def score(request: SimRequest, prediction: Prediction) -> list[MetricResult]:
    """The domain's metrics against the reference; nothing when the real state is unknown."""
    if request.reference is None:
        return []
    return score_observation(
        request.domain, prediction.observation, request.reference, previous_observation(request)
    )


def open_session(
    sessions: SessionStore,
    request: SimRequest,
    engine: str,
    model: str,
    base_trajectory_id: str | None = None,
    owner: str | None = None,
) -> int:
    """Store a new session whose first steps are the request's history (recorded, no prediction)."""
    session_id = sessions.create_session(
        request.domain,
        engine,
        model,
        request.params.model_dump(),
        request.history_mode,
        base_trajectory_id,
        owner,
        system_prompt=request.system_prompt,
        initial_state=request.initial_state,
    )
    for turn in request.history:
        origin = RECORDED if turn.observation is not None else None
        sessions.add_step(session_id, turn.action, turn.observation, origin)
    return session_id


def continue_request(sessions: SessionStore, session_id: int, action: str) -> SimRequest:
    """The request for the next step of a stored session (its history, prompt and sampling)."""
    stored = sessions.load_session(session_id)
    return SimRequest(
        domain=stored.domain,
        system_prompt=stored.system_prompt,
        initial_state=stored.initial_state,
        history=stored.history(),
        action=action,
        history_mode=stored.history_mode,
        params=stored.sampling(),
    )


def run_step(
    simulator: Simulator, sessions: SessionStore, session_id: int, request: SimRequest
) -> Iterator[StreamChunk | StepOutcome]:
    """Stream a prediction, then score it and commit the step; the outcome comes last.

    The action is stored in its domain's canonical text, as later prompts and exports show it.
    """
    action = get_domain(request.domain).validate(request.action, PromptContext())
    for item in simulator.stream(request):
        if isinstance(item, Prediction):
            scores = score(request, item)
            origin = RECORDED if request.reference is not None else None
            record = sessions.add_step(session_id, action, request.reference, origin, item, scores)
            yield StepOutcome(item, scores, session_id, record.step_id, record.prediction_id)
        else:
            yield item
