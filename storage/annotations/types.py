"""What annotators write (validated input) and what the annotation service hands back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from backend.types import ChatMessage
from storage.models import RATING_DIMENSIONS


class Ratings(BaseModel):
    """The five rubric dimensions the official judges use, each 1-5 (absent when not rated)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: int | None = Field(default=None, ge=1, le=5)
    factuality: int | None = Field(default=None, ge=1, le=5)
    consistency: int | None = Field(default=None, ge=1, le=5)
    realism: int | None = Field(default=None, ge=1, le=5)
    quality: int | None = Field(default=None, ge=1, le=5)

    def as_dict(self) -> dict[str, int | None]:
        """Dimension -> rating, in rubric order."""
        return {dim: getattr(self, dim) for dim in RATING_DIMENSIONS}


class AnnotationInput(BaseModel):
    """One annotator's judgement of a prediction: the corrected observation and ratings."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    corrected_observation: str
    ratings: Ratings = Field(default_factory=Ratings)
    accept: bool | None = None
    tags: list[str] = Field(default_factory=list)
    notes: str = ""


class ImportRow(AnnotationInput):
    """One line of an `awp annotations import` file (corrections made in another tool)."""

    prediction_id: int = Field(ge=1)
    annotator: str = Field(min_length=1, max_length=255)


@dataclass(frozen=True)
class AnnotationRecord:
    """A stored annotation at its current version."""

    annotation_id: int
    prediction_id: int
    annotator: str
    corrected_observation: str
    ratings: Mapping[str, int | None]
    accept: bool | None
    tags: list[str]
    notes: str
    source: str
    version: int
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class AnnotationEdit:
    """One entry of an annotation's append-only history: the annotation as written at `version`."""

    annotation_id: int
    version: int
    editor: str
    corrected_observation: str
    ratings: Mapping[str, int | None]
    accept: bool | None
    tags: list[str]
    notes: str
    source: str
    created_at: datetime


@dataclass(frozen=True)
class QueueFilter:
    """Which predictions the queue offers.

    Attributes:
        domain: only this domain.
        engine: only this engine.
        metric: with `min_value`/`max_value`: only predictions whose score for this metric lies
            in the range (inclusive), e.g. the hard cases under 0.5.
        unannotated_only: only predictions nobody has annotated yet.

    """

    domain: str | None = None
    engine: str | None = None
    metric: str | None = None
    min_value: float | None = None
    max_value: float | None = None
    unannotated_only: bool = False


@dataclass(frozen=True)
class QueueItem:
    """A prediction to review, with the context an annotator needs to judge it.

    Attributes:
        origin: where the real observation comes from (recorded, live, annotator).
        task: the agent's task, when known.
        history_mode: the history mode the prediction was made with.
        messages: the exact chat the model was given (None for predictions stored before chats
            were kept), so "consistency" is judged against what the model saw.
    """

    prediction_id: int
    step_id: int
    session_id: int
    step_index: int
    domain: str
    engine: str
    model: str
    action: str
    previous_observation: str | None
    real_observation: str | None
    predicted_observation: str
    reasoning: str
    origin: str | None = None
    task: str = ""
    history_mode: str = "teacher_forced"
    messages: list[ChatMessage] | None = None
    scores: Mapping[str, float] = field(default_factory=dict)
    claim_expires_at: datetime | None = None
