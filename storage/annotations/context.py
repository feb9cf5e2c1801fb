"""What an annotator sees next to a prediction: the task, the chat the model saw, the truth."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from backend.errors import NotFoundError
from backend.history import state_before
from storage.annotations.types import QueueItem
from storage.lineage import lineage_turns
from storage.models import PredictionRow
from storage.prompts import load_prompts


def queue_item(session: Session, prediction_id: int, expires_at: datetime | None) -> QueueItem:
    """Build the review item for one prediction.

    Raises:
        NotFoundError: the prediction does not exist.

    """
    prediction = session.get(PredictionRow, prediction_id)
    if prediction is None:
        raise NotFoundError(f"Prediction {prediction_id} does not exist.")
    step = prediction.step
    owner = step.session
    history = lineage_turns(session, step.session_id, before=step.index)
    messages = load_prompts(session, [(prediction.id, prediction.prompt)]).get(prediction.id)
    return QueueItem(
        prediction_id=prediction.id,
        step_id=step.id,
        session_id=step.session_id,
        step_index=step.index,
        domain=owner.domain,
        engine=prediction.engine,
        model=prediction.model,
        action=step.action,
        previous_observation=state_before(history, owner.initial_state),
        real_observation=step.real_observation,
        origin=step.origin,
        predicted_observation=prediction.observation,
        reasoning=prediction.reasoning,
        task=owner.task,
        history_mode=prediction.history_mode,
        messages=messages,
        scores={score.name: score.value for score in prediction.scores},
        claim_expires_at=expires_at,
        grounded_by=list(prediction.grounded_by or []),
        confidence=prediction.confidence,
    )
