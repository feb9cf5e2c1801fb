"""What annotators write (validated input) and what the annotation service hands back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from backend.errors import BadInputError
from backend.trust import Review
from backend.types import ChatMessage
from backend.verdicts import Verdict
from storage.annotations.rules import prediction_problem, shape_problem
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
    """One annotator's judgement of a prediction, checked against the rules as it is built.

    Attributes:
        verdict: accept, reject or cannot tell (required: a submit without one means nothing).
        corrected_observation: the prediction edited into the real next state; may be left out
            for accept and cannot tell, which then store the prediction itself.
        ratings: the five rubric dimensions, all or none (all for a reject).
        tags: error tags.
        notes: free text.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    verdict: Verdict
    corrected_observation: str | None = None
    ratings: Ratings = Field(default_factory=Ratings)
    tags: list[str] = Field(default_factory=list)
    notes: str = ""

    @model_validator(mode="before")
    @classmethod
    def _verdict_given(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            if "accept" in data:
                raise ValueError(
                    '"accept" is replaced by "verdict": "accept", "reject" or "cannot_tell"'
                )
            if data.get("verdict") in (None, ""):
                raise ValueError("no verdict: choose accept, reject or cannot tell")
        return data

    @model_validator(mode="after")
    def _well_formed(self) -> AnnotationInput:
        problem = shape_problem(self.verdict, self.corrected_observation, self.ratings.as_dict())
        if problem:
            raise ValueError(problem)
        return self

    def settled(self, predicted: str) -> AnnotationInput:
        """This annotation checked against the prediction it judges, ready to store.

        An accept stores the prediction itself as its correction (whitespace an editor added is
        not kept), and a missing correction becomes the prediction.

        Raises:
            BadInputError: the verdict contradicts the correction.
        """
        problem = prediction_problem(self.verdict, self.corrected_observation, predicted)
        if problem:
            raise BadInputError(problem)
        if self.verdict is Verdict.ACCEPT or self.corrected_observation is None:
            return self.model_copy(update={"corrected_observation": predicted})
        return self

    @property
    def correction(self) -> str:
        """The correction of a settled annotation."""
        if self.corrected_observation is None:
            raise ValueError("settle the annotation against its prediction first")
        return self.corrected_observation


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
    verdict: Verdict
    tags: list[str]
    notes: str
    source: str
    version: int
    created_at: datetime
    updated_at: datetime
    author_role: str | None = None
    """The author's role when it was written (None: written before roles were stored)."""
    review: Review | None = None
    """Its state under the trust rule, where the store judged it (a submit or an edit)."""


@dataclass(frozen=True)
class CorrectionPlace:
    """The stored step an annotation corrects.

    Attributes:
        annotation_id: the annotation.
        session_id: the session of the step.
        step_index: the step's 0-based index in it.
        domain: the session's domain (a person reads "session #12, step 3 (terminal)").
    """

    annotation_id: int
    session_id: int
    step_index: int
    domain: str


@dataclass(frozen=True)
class AnnotationEdit:
    """One entry of an annotation's append-only history: the annotation as written at `version`."""

    annotation_id: int
    version: int
    editor: str
    corrected_observation: str
    ratings: Mapping[str, int | None]
    verdict: Verdict
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
        least_confident: the model's least confident predictions first (those without a
            confidence last), where people's review is worth the most.
        session_id: only this session's predictions.
        kind: only predictions of sessions of this kind (their source: playground, bench, ...).
        hide_trivial: leave out baseline predictions (a `baseline:` model) and predictions
            equal to the known real state: nothing to learn from correcting them.

    """

    domain: str | None = None
    engine: str | None = None
    metric: str | None = None
    min_value: float | None = None
    max_value: float | None = None
    unannotated_only: bool = False
    least_confident: bool = False
    session_id: int | None = None
    kind: str | None = None
    hide_trivial: bool = False


@dataclass(frozen=True)
class QueueItem:
    """A prediction to review, with the context an annotator needs to judge it.

    Attributes:
        origin: where the real observation comes from (recorded, live, annotator).
        task: the agent's task, when known.
        history_mode: the history mode the prediction was made with.
        messages: the exact chat the model was given (None for predictions stored before chats
            were kept), so "consistency" is judged against what the model saw.
        grounded_by: the real transitions the model was shown as demonstrations.
        confidence: the model's confidence in the prediction, when known.
        withheld: the step's real state is another annotator's untrusted correction, left out
            (`real_observation` and `origin` are None): it answers for nobody but its author.
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
    grounded_by: list[str] = field(default_factory=list)
    confidence: float | None = None
    withheld: bool = False


@dataclass(frozen=True)
class HeldElsewhere:
    """Predictions a queue offers that other annotators are reviewing now.

    Attributes:
        count: how many.
        first_expiry: when the first of their claims runs out (None when count is 0).
        last_expiry: when the last one does.
    """

    count: int
    first_expiry: datetime | None = None
    last_expiry: datetime | None = None
