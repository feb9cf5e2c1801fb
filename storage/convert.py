"""Conversions between ORM rows and the backend's types or the stores' plain records.

One mechanism copies them: a record's fields, or a row's columns, are taken by name from the
other side (`record`, `row_values`), and each conversion names only the fields that differ (a
renamed column, a JSON column parsed, a child collection). A field added to both sides is copied
with no edit here; one added to a record alone fails at its first conversion, not silently.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel
from sqlalchemy import inspect as sa_inspect

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
    Base,
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

R = TypeVar("R")


def field_names(kind: type) -> tuple[str, ...]:
    """The fields of a dataclass or a pydantic model, in order."""
    if dataclasses.is_dataclass(kind):
        return tuple(f.name for f in dataclasses.fields(kind))
    if issubclass(kind, BaseModel):
        return tuple(kind.model_fields)
    raise TypeError(f"{kind.__name__} is neither a dataclass nor a pydantic model.")


def same_named(source: object, names: Iterable[str], **given: Any) -> dict[str, Any]:
    """`source`'s attributes called `names`, by name, with the `given` values in their place."""
    return {name: getattr(source, name) for name in names if name not in given} | given


def record(kind: type[R], source: object, **given: Any) -> R:
    """A `kind` whose every field is `source`'s attribute of that name, unless `given`.

    Raises:
        AttributeError: a field is neither given nor on `source`.
    """
    return kind(**same_named(source, field_names(kind), **given))


def row_values(
    row: type[Base], source: BaseModel, without: Collection[str] = (), **given: Any
) -> dict[str, Any]:
    """Column values of a `row` from `source`: its fields that are columns too, and `given`.

    Args:
        row: the ORM class (its mapped attribute names, which a renamed column keeps).
        source: the backend value.
        without: shared names left out (a key the caller sets itself).
        given: the columns whose value is not the same-named field as it is.
    """
    columns = {attribute.key for attribute in sa_inspect(row).column_attrs}
    shared = [n for n in field_names(type(source)) if n in columns and n not in without]
    return same_named(source, shared, **given)


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
    return row_values(
        PredictionRow,
        prediction,
        step_id=step_id,
        diagnostics=prediction.diagnostics.model_dump(),
        grounded_by=list(prediction.grounded_by),
        provenance=provenance_value(prediction.observation, prediction.provenance),
        params=dict(params),
        history_mode=history_mode,
        created_at=utcnow(),
    )


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
    return record(
        Prediction,
        row,
        diagnostics=Diagnostics.model_validate(row.diagnostics),
        action=action,
        messages=messages,
        grounded_by=list(row.grounded_by or []),
        answered_by=row.engine if row.engine in EXACT_ANSWERERS else "model",
        history_dropped=row.history_dropped or 0,
        provenance=read_provenance(row.provenance),
    )


def stored_score(row: ScoreRow) -> StoredScore:
    """A plain copy of a score row."""
    return record(StoredScore, row)


def stored_step(row: StepRow, prompts: Mapping[int, list[ChatMessage]]) -> StoredStep:
    """A plain copy of a step row with its (already loaded) predictions, prompts and scores."""
    return record(
        StoredStep,
        row,
        step_id=row.id,
        provenance=read_provenance(row.provenance),
        predictions=[
            record(
                StoredPrediction,
                p,
                prediction_id=p.id,
                prediction=to_prediction(p, row.action, prompts.get(p.id, [])),
                scores=[stored_score(s) for s in p.scores],
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
    return record(
        StoredSession,
        row,
        history_mode=HistoryMode(row.history_mode),
        context=session_context(row),
        steps=[stored_step(step, prompts) for step in steps],
    )


def trajectory_fields(trajectory: Trajectory) -> dict[str, Any]:
    """Column values of a trajectory row (without its id, which the caller keys on, or turns)."""
    return row_values(TrajectoryRow, trajectory, without={"id"}, extra=dict(trajectory.metadata))


def turn_rows(trajectory: Trajectory) -> list[TurnRow]:
    """New turn rows for a trajectory, 0-based, each with its source (`turn_sources`)."""
    return [
        TurnRow(index=i, **row_values(TurnRow, t, provenance=stored(source)))
        for i, (t, source) in enumerate(
            zip(trajectory.turns, turn_sources(trajectory), strict=True)
        )
    ]


def to_trajectory(row: TrajectoryRow) -> Trajectory:
    """The backend Trajectory a row (with its turns loaded) stores."""
    return record(
        Trajectory,
        row,
        turns=[record(Turn, t, provenance=read_provenance(t.provenance)) for t in row.turns],
        metadata=row.extra,
    )
