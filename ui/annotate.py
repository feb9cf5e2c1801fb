"""Annotation flow for the UI: claim the next prediction, load my earlier work, submit an edit.

Submitting names the version that was read; the store refuses a stale one (another tab or a
reviewer changed it) with a `ConflictError` whose message tells the annotator nothing was saved.
"""

from __future__ import annotations

from dataclasses import dataclass

from backend.errors import BadInputError
from storage.annotations import AnnotationInput, QueueFilter, QueueItem, Ratings
from ui.services import Services

ANNOTATOR = "annotator"
"""Origin recorded for a real observation written by an annotator."""
RATING_NAMES = ("format", "factuality", "consistency", "realism", "quality")
VERDICTS = {"accept": True, "reject": False}
ERROR_TAGS = (
    "wrong effect of the action",
    "stale copy of the previous state",
    "hallucinated content",
    "missing content",
    "wrong format",
    "speculative wording",
    "truncated",
)


@dataclass(frozen=True)
class Draft:
    """What the editor opens with for one item.

    Attributes:
        item: the claimed prediction and its context.
        corrected: the text to edit (my earlier correction, else the prediction).
        ratings: my earlier ratings by dimension.
        accept: my earlier verdict.
        tags: my earlier tags.
        notes: my earlier notes.
        version: my annotation's version when editing one, None for a first annotation.
    """

    item: QueueItem
    corrected: str
    ratings: dict[str, int | None]
    accept: bool | None = None
    tags: tuple[str, ...] = ()
    notes: str = ""
    version: int | None = None


class Annotator:
    """The annotation operations the Annotate page calls, on behalf of one user name."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def next(self, user: str, domain: str | None) -> Draft | None:
        """Claim the next prediction to review; None when the queue is empty."""
        item = self.services.queue.claim_next(user, QueueFilter(domain=domain or None))
        return self._draft(item, user) if item else None

    def open(self, user: str, prediction_id: int) -> Draft:
        """Claim a given prediction (to revisit my own annotation or pick from a list)."""
        return self._draft(self.services.queue.claim(prediction_id, user), user)

    def skip(self, user: str, draft: Draft | None, domain: str | None) -> Draft | None:
        """Give the current item back and claim the next one."""
        if draft is not None:
            self.services.queue.release(draft.item.prediction_id, user)
        return self.next(user, domain)

    def submit(
        self,
        user: str,
        draft: Draft | None,
        corrected: str,
        ratings: dict[str, int | None],
        verdict: str | None,
        tags: list[str],
        notes: str,
    ) -> int:
        """Store the annotation; returns its new version.

        Raises:
            BadInputError: there is no item to annotate.
            ConflictError: my annotation changed since it was opened (nothing saved).
        """
        if draft is None:
            raise BadInputError("There is nothing to submit: take the next item from the queue.")
        annotation = AnnotationInput(
            corrected_observation=corrected,
            ratings=Ratings(**{k: int(v) if v else None for k, v in ratings.items()}),
            accept=VERDICTS.get(verdict or ""),
            tags=list(tags or []),
            notes=notes or "",
        )
        record = self.services.annotations.submit(
            draft.item.prediction_id, user, annotation, draft.version
        )
        if draft.item.real_observation is None:
            # Off the recording nobody saw reality: the annotator's correction becomes it.
            self.services.sessions.set_real_observation(draft.item.step_id, corrected, ANNOTATOR)
        return record.version

    def _draft(self, item: QueueItem, user: str) -> Draft:
        mine = self.services.annotations.list_annotations(
            prediction_id=item.prediction_id, annotator=user, limit=1
        )
        if not mine:
            empty: dict[str, int | None] = dict.fromkeys(RATING_NAMES)
            return Draft(item, item.predicted_observation, empty)
        record = mine[0]
        return Draft(item, record.corrected_observation, dict(record.ratings), record.accept,
                     tuple(record.tags), record.notes, record.version)  # fmt: skip
