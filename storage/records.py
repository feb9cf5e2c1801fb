"""Plain read-only records the stores return; callers never hold live ORM objects."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from backend.types import HistoryMode, Prediction, SamplingParams, Turn


class ScoreLike(Protocol):
    """Anything shaped like `backend.scoring.MetricResult`: a named, versioned value."""

    @property
    def name(self) -> str:
        """Metric (or judge dimension) name."""
        ...

    @property
    def version(self) -> Any:
        """Metric version; stored as text."""
        ...

    @property
    def value(self) -> float:
        """The score, normally in [0, 1]."""
        ...

    @property
    def details(self) -> Mapping[str, Any] | None:
        """JSON-serialisable detail (matched nodes, judge reasoning, ...)."""
        ...


@dataclass(frozen=True)
class StoredScore:
    """A stored score (satisfies ScoreLike)."""

    name: str
    version: str
    value: float
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StepRecord:
    """What `SessionStore.add_step` committed: ids to show the user and to link later writes."""

    step_id: int
    prediction_id: int | None
    index: int


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

    @property
    def prediction(self) -> StoredPrediction | None:
        """The step's first prediction: the one closed-loop history shows."""
        return self.predictions[0] if self.predictions else None


@dataclass(frozen=True)
class StoredSession:
    """A session with every step it sees, enough to show it again or continue it."""

    id: int
    domain: str
    engine: str
    model: str
    params: Mapping[str, Any]
    history_mode: HistoryMode
    system_prompt: str | None
    initial_state: str | None
    task: str
    owner: str | None
    base_trajectory_id: str | None
    parent_session_id: int | None
    branched_at: int | None
    created_at: datetime
    steps: list[StoredStep]

    def history(self) -> list[Turn]:
        """The steps as turns for a `SimRequest`: real observations plus first predictions."""
        return [
            Turn(
                action=step.action,
                observation=step.real_observation,
                predicted=step.prediction.prediction.observation if step.prediction else None,
            )
            for step in self.steps
        ]

    def sampling(self) -> SamplingParams:
        """The session's sampling parameters (unknown keys in stored params are ignored)."""
        known = SamplingParams.model_fields
        return SamplingParams(**{k: v for k, v in self.params.items() if k in known})


@dataclass(frozen=True)
class SessionSummary:
    """One line of a session listing."""

    id: int
    domain: str
    engine: str
    model: str
    history_mode: str
    owner: str | None
    parent_session_id: int | None
    steps: int
    created_at: datetime
    updated_at: datetime
