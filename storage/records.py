"""Plain read-only records the stores return; callers never hold live ORM objects."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from backend.grounding.transitions import own_recording
from backend.provenance import Provenance
from backend.recording import StoredScore
from backend.types import (
    HistoryMode,
    Prediction,
    PromptContext,
    ReferenceOrigin,
    SamplingParams,
    SimRequest,
    Turn,
)


@dataclass(frozen=True)
class StoredPrediction:
    """A stored prediction with the parameters it was made with and its scores."""

    prediction_id: int
    prediction: Prediction
    params: Mapping[str, Any]
    history_mode: str
    scores: list[StoredScore]
    created_at: datetime


@dataclass(frozen=True)
class StoredStep:
    """A step of a session (possibly inherited from the session it branched from)."""

    step_id: int
    session_id: int
    index: int
    action: str
    real_observation: str | None
    origin: str | None
    predictions: list[StoredPrediction]
    answered_by: str | None = None
    provenance: Provenance | None = None
    """Where `real_observation` came from (None without one, or for a row stored before)."""

    @property
    def prediction(self) -> StoredPrediction | None:
        """The step's first prediction: the one later history shows (`backend.history`)."""
        return self.predictions[0] if self.predictions else None

    def turn(self) -> Turn:
        """The step as a history turn: its real observation and first prediction."""
        first = self.prediction
        return Turn(
            action=self.action,
            observation=self.real_observation,
            predicted=first.prediction.observation if first else None,
            provenance=self.provenance,
        )


@dataclass(frozen=True)
class StoredSession:
    """A session with every step it sees, enough to show it again or continue it."""

    id: int
    domain: str
    kind: str
    engine: str
    model: str
    params: Mapping[str, Any]
    history_mode: HistoryMode
    system_prompt: str | None
    context: PromptContext
    initial_state: str | None
    task: str
    owner: str | None
    base_trajectory_id: str | None
    parent_session_id: int | None
    branched_at: int | None
    bench_run_id: int | None
    created_at: datetime
    steps: list[StoredStep]
    world: Mapping[str, Any] | None = None
    """The world spec it ran in (`backend.spec.WorldSpec.stored`); None before specs were kept."""

    def history(self) -> list[Turn]:
        """The steps as turns for a `SimRequest`: real observations plus first predictions."""
        return [step.turn() for step in self.steps]

    def request(
        self,
        action: str,
        reference: str | None = None,
        origin: ReferenceOrigin = "recorded",
    ) -> SimRequest:
        """The request for the next step: this session's prompt settings, history and sampling.

        Grounding never shows it its base recording (`grounding_exclude`).

        Args:
            action: the next action.
            reference: the real observation after it, when known before the step.
            origin: where `reference` comes from.
        """
        return SimRequest(
            domain=self.domain,
            system_prompt=self.system_prompt,
            context=self.context,
            initial_state=self.initial_state,
            history=self.history(),
            action=action,
            history_mode=self.history_mode,
            params=self.sampling(),
            reference=reference,
            reference_origin=origin,
            grounding_exclude=own_recording(self.base_trajectory_id),
        )

    def sampling(self) -> SamplingParams:
        """The session's sampling parameters (unknown keys in stored params are ignored)."""
        known = SamplingParams.model_fields
        return SamplingParams(**{k: v for k, v in self.params.items() if k in known})


@dataclass(frozen=True)
class SessionSummary:
    """One line of a session listing."""

    id: int
    domain: str
    kind: str
    engine: str
    model: str
    history_mode: str
    owner: str | None
    parent_session_id: int | None
    steps: int
    created_at: datetime
    updated_at: datetime
    complete: bool = True
    """False for an episode that has not ended (still running, or its process was killed)."""
