"""What an exporter reads per prediction: storage fills these, writers never touch SQL.

A record is one prediction in its context (the steps before it, as the model saw them) with at
most one annotation; a prediction judged by two annotators yields two records.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from backend.provenance import Provenance, ReviewState, stored
from backend.scoring.judge import JUDGE_PREFIX
from backend.types import ChatMessage, HistoryMode, PromptContext, Turn
from backend.verdicts import Verdict, truth


@dataclass(frozen=True)
class ExportScore:
    """A stored score: a deterministic metric value, or a judge dimension (`judge.<dim>`)."""

    name: str
    version: str
    value: float

    @property
    def is_judge(self) -> bool:
        """Whether this is a judge rubric dimension rather than a metric."""
        return self.name.startswith(JUDGE_PREFIX)


@dataclass(frozen=True)
class ExportAnnotation:
    """An annotator's judgement of the prediction, at its current version.

    `author_role` is the author's role when they wrote it; `review` and `trusted_by` its state
    under the trust rule now (`backend.trust`). Untrusted corrections are exported too: the
    state says what they are.
    """

    annotation_id: int
    annotator: str
    corrected_observation: str
    ratings: Mapping[str, int | None]
    verdict: Verdict
    tags: list[str]
    notes: str
    version: int
    updated_at: datetime
    author_role: str | None = None
    review: ReviewState = "unreviewed"
    trusted_by: str = ""

    def mean_rating(self) -> float | None:
        """Mean of the dimensions rated, None when none was."""
        rated = [value for value in self.ratings.values() if value is not None]
        return sum(rated) / len(rated) if rated else None


@dataclass(frozen=True)
class ExportRecord:
    """One prediction with its context, scores and (optionally) one annotation.

    Attributes:
        context: the task and tool definitions the session's prompts were filled with.
        history: the session's earlier steps as turns (real observations, first predictions).
        messages: the exact chat the prediction was made from; None for predictions stored
            before chats were kept (their prompt is rebuilt by the one history rule).
        previous_observation: the state just before the action, when known.
        grounded_by: the real transitions the prediction was shown as demonstrations.
        answered_by: who answered the step (model, record, executor, live), when known.
        confidence: the model's confidence in the prediction, when known.
        history_dropped: the oldest turns left out of `messages` to fit the engine's context,
            when known (None for predictions stored before it was kept).
        provenance: where the prediction's observation came from (`backend.provenance`).
        real_provenance: where the real observation came from (None when it is unknown).

    """

    session_id: int
    step_id: int
    step_index: int
    prediction_id: int
    domain: str
    engine: str
    model: str
    history_mode: HistoryMode
    system_prompt: str | None
    context: PromptContext
    initial_state: str | None
    history: list[Turn]
    messages: list[ChatMessage] | None
    action: str
    real_observation: str | None
    previous_observation: str | None
    predicted_observation: str
    raw_text: str
    created_at: datetime
    scores: list[ExportScore] = field(default_factory=list)
    annotation: ExportAnnotation | None = None
    grounded_by: list[str] = field(default_factory=list)
    answered_by: str | None = None
    confidence: float | None = None
    history_dropped: int | None = None
    provenance: Provenance | None = None
    real_provenance: Provenance | None = None

    def links(self) -> dict[str, Any]:
        """The link columns every export row carries (`backend.export.rows.LinkedRow`)."""
        annotation = self.annotation
        return {
            "domain": self.domain,
            "session_id": self.session_id,
            "step_id": self.step_id,
            "prediction_id": self.prediction_id,
            "annotation_id": annotation.annotation_id if annotation else None,
            "engine": self.engine,
            "model": self.model,
            "annotator": annotation.annotator if annotation else None,
            "author_role": annotation.author_role if annotation else None,
            "review": annotation.review if annotation else None,
            "grounded_by": list(self.grounded_by),
            "answered_by": self.answered_by,
            "confidence": self.confidence,
            "history_dropped": self.history_dropped,
            "provenance": stored(self.provenance) if self.provenance else None,
            "real_provenance": stored(self.real_provenance) if self.real_provenance else None,
        }

    @property
    def reference(self) -> str | None:
        """The best known truth: what the annotation establishes, else the real observation.

        An annotated record takes its truth from the verdict alone (`backend.verdicts.truth`):
        the prediction for accept, the correction for reject, none for cannot tell.
        """
        if self.annotation is not None:
            return truth(
                self.annotation.verdict,
                self.predicted_observation,
                self.annotation.corrected_observation,
            )
        return self.real_observation


@dataclass(frozen=True)
class ExportContext:
    """What building rows needs beyond the records.

    Attributes:
        system_prompt: the default system prompt of a domain filled from a context (for
            sessions without their own).

    """

    system_prompt: Callable[[str, PromptContext], str]
    _defaults: dict[tuple[str, str], str] = field(default_factory=dict, init=False, repr=False)

    def prompt_of(self, record: ExportRecord) -> str:
        """The system prompt the record's prediction was made with.

        That is the stored chat's system message; for older predictions without a stored chat,
        the session's own prompt or its domain's filled from its context (each built once).
        """
        if record.messages and record.messages[0].role == "system":
            return record.messages[0].content
        if record.system_prompt:
            return record.system_prompt
        key = (record.domain, record.context.model_dump_json())
        if key not in self._defaults:
            self._defaults[key] = self.system_prompt(record.domain, record.context)
        return self._defaults[key]
