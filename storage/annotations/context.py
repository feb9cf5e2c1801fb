"""What an annotator sees next to a prediction: the action, the state before it, the truth."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from backend.errors import NotFoundError
from storage.annotations.types import QueueItem
from storage.lineage import lineage_steps
from storage.models import PredictionRow, StepRow


def previous_observation(session: Session, step: StepRow) -> str | None:
    """The observation before `step`: the last real one (else predicted) or the initial state."""
    history = lineage_steps(session, step.session_id, before=step.index)
    if not history:
        return step.session.initial_state
    last = history[-1]
    if last.real_observation is not None:
        return last.real_observation
    return last.predictions[0].observation if last.predictions else None


def queue_item(session: Session, prediction_id: int, expires_at: datetime | None) -> QueueItem:
    """Build the review item for one prediction.

    Raises:
        NotFoundError: the prediction does not exist.

    """
    prediction = session.get(PredictionRow, prediction_id)
    if prediction is None:
        raise NotFoundError(f"Prediction {prediction_id} does not exist.")
    step = prediction.step
    return QueueItem(
        prediction_id=prediction.id,
        step_id=step.id,
        session_id=step.session_id,
        step_index=step.index,
        domain=step.session.domain,
        engine=prediction.engine,
        model=prediction.model,
        action=step.action,
        previous_observation=previous_observation(session, step),
        real_observation=step.real_observation,
        predicted_observation=prediction.observation,
        reasoning=prediction.reasoning,
        scores={score.name: score.value for score in prediction.scores},
        claim_expires_at=expires_at,
    )
