"""What an annotator sees next to a prediction: the task, the chat the model saw, the truth."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from backend.errors import NotFoundError
from backend.history import state_before
from backend.provenance import Correction, parse_provenance
from storage.annotations.types import QueueItem
from storage.lineage import lineage_turns
from storage.models import PredictionRow
from storage.prompts import load_prompts


def others_unreviewed(provenance: dict[str, Any] | None, viewer: str | None) -> bool:
    """Whether a step truth is someone else's correction the trust rule does not trust.

    Such a truth answers for nobody but its author (`backend.trust`), so another annotator is
    not shown it as the real state either (nor offered to copy it into their own correction).
    """
    if provenance is None:
        return False
    made = parse_provenance(provenance)
    return isinstance(made, Correction) and made.review != "trusted" and made.author != viewer


def queue_item(
    session: Session, prediction_id: int, expires_at: datetime | None, viewer: str | None = None
) -> QueueItem:
    """Build the review item for one prediction, as `viewer` may see it.

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
    hidden = others_unreviewed(step.provenance, viewer)
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
        real_observation=None if hidden else step.real_observation,
        origin=None if hidden else step.origin,
        predicted_observation=prediction.observation,
        reasoning=prediction.reasoning,
        task=owner.task,
        history_mode=prediction.history_mode,
        messages=messages,
        scores={score.name: score.value for score in prediction.scores},
        claim_expires_at=expires_at,
        grounded_by=list(prediction.grounded_by or []),
        confidence=prediction.confidence,
        withheld=hidden,
    )
