"""What a voter is shown: one step's context, and a "Which one is real?" item or an arena pair.

Both are read from stored steps through the one history rule (`storage.lineage`,
`backend.history`), so the history a voter sees is the history the model was given.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from backend.compare.contenders import contender_label
from backend.errors import NotFoundError
from backend.history import state_before
from backend.types import Turn
from storage.lineage import lineage_turns
from storage.models import PredictionRow, StepRow


@dataclass(frozen=True)
class StepContext:
    """One stored step as voters see it.

    Attributes:
        step_id: the step.
        session_id: its session.
        domain: its domain.
        task: the agent's task, when known.
        action: the action.
        history: the turns before it.
        previous: the state before the action (None when unknown).
        real: the real next observation (None when unknown).
    """

    step_id: int
    session_id: int
    domain: str
    task: str
    action: str
    history: list[Turn] = field(default_factory=list)
    previous: str | None = None
    real: str | None = None


@dataclass(frozen=True)
class RealItem:
    """A "Which one is real?" item: the real next observation and one prediction of it.

    Attributes:
        prediction_id: the prediction shown.
        context: the step.
        predicted: the prediction's observation.
        engine: the engine that made it (revealed after the vote).
        model: its model.
        real_side: where the real observation is shown, "A" or "B" (drawn per showing).
    """

    prediction_id: int
    context: StepContext
    predicted: str
    engine: str
    model: str
    real_side: str

    @property
    def sides(self) -> tuple[str, str]:
        """The observations shown as A and B."""
        real = self.context.real or ""
        return (real, self.predicted) if self.real_side == "A" else (self.predicted, real)


@dataclass(frozen=True)
class ArenaPair:
    """An arena battle: two predictions of one step, shown as A and B without names."""

    context: StepContext
    prediction_a: int
    prediction_b: int
    first: str
    second: str
    contender_a: str
    contender_b: str


def step_context(session: Session, step: StepRow) -> StepContext:
    """The context of a stored step (its history through its session's lineage)."""
    owner = step.session
    history = lineage_turns(session, step.session_id, before=step.index)
    return StepContext(
        step_id=step.id,
        session_id=step.session_id,
        domain=owner.domain,
        task=owner.task,
        action=step.action,
        history=history,
        previous=state_before(history, owner.initial_state),
        real=step.real_observation,
    )


def prediction_row(session: Session, prediction_id: int) -> PredictionRow:
    """A stored prediction.

    Raises:
        NotFoundError: it does not exist.
    """
    row = session.get(PredictionRow, prediction_id)
    if row is None:
        raise NotFoundError(f"Prediction {prediction_id} does not exist.")
    return row


def row_contender(row: PredictionRow) -> str:
    """The contender label of a stored prediction (engine, model, temperature)."""
    temperature = (row.params or {}).get("temperature")
    return contender_label(row.engine, row.model, temperature)


def arena_pair(session: Session, prediction_a: int, prediction_b: int) -> ArenaPair:
    """Two predictions of one step as an arena pair.

    Raises:
        NotFoundError: either prediction does not exist, or they predict different steps.
    """
    first, second = prediction_row(session, prediction_a), prediction_row(session, prediction_b)
    if first.step_id != second.step_id:
        raise NotFoundError(
            f"Predictions {prediction_a} and {prediction_b} do not predict the same step."
        )
    return ArenaPair(
        context=step_context(session, first.step),
        prediction_a=first.id,
        prediction_b=second.id,
        first=first.observation,
        second=second.observation,
        contender_a=row_contender(first),
        contender_b=row_contender(second),
    )


def item_key(session: Session, step_id: int, *parts: str) -> str:
    """What a vote is about, as a key: the recorded step behind `step_id`, and `parts`.

    A battle's session starts from a recording, so its step is that recording's turn however
    many sessions showed it; a step of any other session is itself.
    """
    step = session.get(StepRow, step_id)
    if step is None:
        raise NotFoundError(f"Step {step_id} does not exist.")
    owner = step.session
    origin = owner.base_trajectory_id or f"session:{owner.id}"
    text = "\n".join((owner.domain, origin, str(step.index), step.action, *parts))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
