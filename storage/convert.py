"""Conversions between ORM rows and the backend's types or the stores' plain records."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from backend.errors import BadInputError
from backend.provenance import Provenance, parse_provenance, stored
from backend.recording import ScoreLike
from backend.sources import turn_sources
from backend.types import (
    EXACT_ANSWERERS,
    ChatMessage,
    Diagnostics,
    HistoryMode,
    Prediction,
    PromptContext,
    Trajectory,
    Turn,
)
from storage.models import (
    PredictionRow,
    ScoreRow,
    SessionRow,
    StepRow,
    TrajectoryRow,
    TurnRow,
    utcnow,
)
from storage.records import (
    StoredPrediction,
    StoredScore,
    StoredSession,
    StoredStep,
)


def provenance_value(observation: str | None, provenance: Provenance | None) -> dict | None:
    """The stored JSON of an observation's source (None without an observation).

    Raises:
        BadInputError: an observation without its source: every observation stored says
            where it came from (`backend.provenance`).
    """
    if observation is None:
        return None
    if provenance is None:
        raise BadInputError("An observation needs its provenance: where it came from.")
    return stored(provenance)


def read_provenance(value: dict | None) -> Provenance | None:
    """A stored source as its typed value (None for none)."""
    return parse_provenance(value) if value is not None else None


def prediction_values(
    step_id: int, prediction: Prediction, params: Mapping[str, Any], history_mode: str
) -> dict[str, Any]:
    """Column values of a prediction row: everything in `prediction` plus how it was asked."""
    return {
        "step_id": step_id,
        "observation": prediction.observation,
        "reasoning": prediction.reasoning,
        "raw_text": prediction.raw_text,
        "finish_reason": prediction.finish_reason,
        "prompt_tokens": prediction.prompt_tokens,
        "completion_tokens": prediction.completion_tokens,
        "latency_s": prediction.latency_s,
        "engine": prediction.engine,
        "model": prediction.model,
        "diagnostics": prediction.diagnostics.model_dump(),
        "grounded_by": list(prediction.grounded_by),
        "confidence": prediction.confidence,
        "history_dropped": prediction.history_dropped,
        "provenance": provenance_value(prediction.observation, prediction.provenance),
        "params": dict(params),
        "history_mode": history_mode,
        "created_at": utcnow(),
    }


def score_values(prediction_id: int, scores: Iterable[ScoreLike]) -> list[dict[str, Any]]:
    """Column values of score rows; versions are stored as text whatever type a metric uses."""
    now = utcnow()
    return [
        {
            "prediction_id": prediction_id,
            "name": score.name,
            "version": str(score.version),
            "value": float(score.value),
            "details": dict(score.details or {}),
            "created_at": now,
        }
        for score in scores
    ]


def to_prediction(row: PredictionRow, action: str, messages: list[ChatMessage]) -> Prediction:
    """The backend Prediction a row stores (of the step's `action`, made from `messages`)."""
    return Prediction(
        observation=row.observation,
        reasoning=row.reasoning,
        raw_text=row.raw_text,
        finish_reason=row.finish_reason,
        prompt_tokens=row.prompt_tokens,
        completion_tokens=row.completion_tokens,
        latency_s=row.latency_s,
        engine=row.engine,
        model=row.model,
        diagnostics=Diagnostics.model_validate(row.diagnostics),
        action=action,
        messages=messages,
        grounded_by=list(row.grounded_by or []),
        answered_by=row.engine if row.engine in EXACT_ANSWERERS else "model",
        confidence=row.confidence,
        history_dropped=row.history_dropped or 0,
        provenance=read_provenance(row.provenance),
    )


def stored_score(row: ScoreRow) -> StoredScore:
    """A plain copy of a score row."""
    return StoredScore(name=row.name, version=row.version, value=row.value, details=row.details)


def stored_step(row: StepRow, prompts: Mapping[int, list[ChatMessage]]) -> StoredStep:
    """A plain copy of a step row with its (already loaded) predictions, prompts and scores."""
    return StoredStep(
        step_id=row.id,
        session_id=row.session_id,
        index=row.index,
        action=row.action,
        real_observation=row.real_observation,
        origin=row.origin,
        answered_by=row.answered_by,
        provenance=read_provenance(row.provenance),
        predictions=[
            StoredPrediction(
                prediction_id=p.id,
                prediction=to_prediction(p, row.action, prompts.get(p.id, [])),
                params=p.params,
                history_mode=p.history_mode,
                scores=[stored_score(s) for s in p.scores],
                created_at=p.created_at,
            )
            for p in row.predictions
        ],
    )


def session_context(row: SessionRow) -> PromptContext:
    """The prompt context a session stored (older sessions stored their task alone)."""
    if row.prompt_context:
        return PromptContext.model_validate(row.prompt_context)
    return PromptContext(task=row.task or None)


def stored_session(
    row: SessionRow, steps: Sequence[StepRow], prompts: Mapping[int, list[ChatMessage]]
) -> StoredSession:
    """A plain copy of a session row with the steps it sees and their predictions' prompts."""
    return StoredSession(
        id=row.id,
        domain=row.domain,
        kind=row.kind,
        engine=row.engine,
        model=row.model,
        params=row.params,
        history_mode=HistoryMode(row.history_mode),
        system_prompt=row.system_prompt,
        context=session_context(row),
        initial_state=row.initial_state,
        task=row.task,
        owner=row.owner,
        base_trajectory_id=row.base_trajectory_id,
        parent_session_id=row.parent_session_id,
        branched_at=row.branched_at,
        bench_run_id=row.bench_run_id,
        created_at=row.created_at,
        steps=[stored_step(step, prompts) for step in steps],
    )


def trajectory_fields(trajectory: Trajectory) -> dict[str, Any]:
    """Column values of a trajectory row (without its turns)."""
    return {
        "domain": trajectory.domain,
        "system_prompt": trajectory.system_prompt,
        "task": trajectory.task,
        "initial_state": trajectory.initial_state,
        "source": trajectory.source,
        "licence": trajectory.licence,
        "commit": trajectory.commit,
        "notes": trajectory.notes,
        "action_inferred": trajectory.action_inferred,
        "extra": dict(trajectory.metadata),
    }


def turn_rows(trajectory: Trajectory) -> list[TurnRow]:
    """New turn rows for a trajectory, 0-based, each with its source (`turn_sources`)."""
    return [
        TurnRow(
            index=i,
            action=t.action,
            observation=t.observation,
            predicted=t.predicted,
            provenance=stored(source),
        )
        for i, (t, source) in enumerate(
            zip(trajectory.turns, turn_sources(trajectory), strict=True)
        )
    ]


def to_trajectory(row: TrajectoryRow) -> Trajectory:
    """The backend Trajectory a row (with its turns loaded) stores."""
    return Trajectory(
        id=row.id,
        domain=row.domain,
        system_prompt=row.system_prompt,
        task=row.task,
        initial_state=row.initial_state,
        turns=[
            Turn(
                action=t.action,
                observation=t.observation,
                predicted=t.predicted,
                provenance=read_provenance(t.provenance),
            )
            for t in row.turns
        ],
        source=row.source,
        licence=row.licence,
        commit=row.commit,
        notes=row.notes,
        action_inferred=row.action_inferred,
        metadata=row.extra,
    )
