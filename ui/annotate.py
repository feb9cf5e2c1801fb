"""Annotation flow for the UI: claim the next prediction, load my earlier work, submit, skip.

The rules of an annotation (a verdict, what it needs) live in `storage.annotations`; this module
turns the page's widget values into an `AnnotationInput` and lets the store judge it, so the
page and `awp annotations import` refuse the same things with the same words. Submitting names
the version that was read; the store refuses a stale one (another tab or a reviewer changed it)
with a `ConflictError` whose message tells the annotator nothing was saved.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from pydantic import ValidationError

from backend.domains.base import get_domain
from backend.engines.base import engine_spec
from backend.errors import BadInputError
from backend.observations import empty_form
from backend.verdicts import Verdict
from storage.annotations import (
    AnnotationInput,
    AnnotationRecord,
    HeldElsewhere,
    QueueFilter,
    QueueItem,
    Ratings,
    explain,
)
from ui.services import Services
from ui.structured import Form, form_of, stored
from ui.users import User

RATING_HELP = {
    "format": "1: not the environment's output format (prose, broken markup) · "
    "5: exactly the format this environment prints",
    "factuality": "1: the action's effect or the facts shown are wrong · "
    "5: everything the action determines is right",
    "consistency": "1: contradicts what the earlier turns established · "
    "5: agrees with every earlier turn the model saw",
    "realism": "1: no real environment would show this · "
    "5: indistinguishable from a real observation",
    "quality": "1: useless as the agent's next observation · 5: as useful as the real one",
}
"""What 1 and 5 mean for each of the five rubric dimensions, in rubric order."""
RATING_NAMES = tuple(RATING_HELP)
VERDICT_CHOICES = [(verdict.label.capitalize(), verdict.value) for verdict in Verdict]
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
        verdict: my earlier verdict.
        tags: my earlier tags.
        notes: my earlier notes.
        version: my annotation's version when editing one, None for a first annotation.
        form: how the text in the editor is stored, when the editor shows it pretty (a JSON
            or XML document); None: edited as it is.
    """

    item: QueueItem
    corrected: str
    ratings: dict[str, int | None]
    verdict: Verdict | None = None
    tags: tuple[str, ...] = ()
    notes: str = ""
    version: int | None = None
    form: Form | None = None

    def editing(self, text: str) -> Draft:
        """The draft with `text` (a stored observation) loaded into the editor."""
        return replace(self, form=form_of(text, get_domain(self.item.domain).observation_kind))


def starting_text(item: QueueItem, text: str) -> str:
    """What the editor opens with for `text`: an empty one as its domain's empty document.

    An empty prediction of a structured domain is corrected from the smallest document of its
    form (`{}` for MCP), so the editor checks the syntax from the first keystroke.
    """
    return text if text.strip() else empty_form(item.domain) or text


@dataclass(frozen=True)
class QueueState:
    """Where an annotator stands in the queue of one filter.

    Attributes:
        left: predictions this annotator may still take (a claimed one included).
        held: those other annotators are reviewing now.
    """

    left: int
    held: HeldElsewhere


def queue_filter(domain: str | None, extra: QueueFilter | None) -> QueueFilter:
    """The page's queue filter (engine, session, source, trivial items) with its domain menu."""
    return replace(extra or QueueFilter(), domain=domain or None)


def default_filter(services: Services) -> QueueFilter:
    """Baselines and exact matches are hidden, unless the server's default engine is a baseline.

    A reviewer's hour is wasted on oracle copies of the truth; but on a server that runs a
    baseline by default (a demo, the tests) its predictions are all there is to review.
    """
    return QueueFilter(hide_trivial=not engine_spec(services.defaults.engine).baseline)


class Annotator:
    """The annotation operations the Annotate page calls, on behalf of one user name."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def next(self, user: str, domain: str | None, extra: QueueFilter | None = None) -> Draft | None:
        """Claim the next prediction to review; None when the queue is empty."""
        item = self.services.queue.claim_next(user, queue_filter(domain, extra))
        return self._draft(item, user) if item else None

    def open(self, user: str, prediction_id: float | None) -> Draft:
        """Claim a given prediction (to revisit my own annotation or pick from a list).

        Raises:
            BadInputError: no prediction number was given.
            NotFoundError: no prediction has that number.
            ConflictError: another annotator is reviewing it.
        """
        if not prediction_id or prediction_id < 1 or prediction_id != int(prediction_id):
            raise BadInputError("Type the number of a prediction to open (1 or more).")
        return self._draft(self.services.queue.claim(int(prediction_id), user), user)

    def skip(
        self, user: str, draft: Draft | None, domain: str | None, extra: QueueFilter | None = None
    ) -> Draft | None:
        """Send the current item to the back of my queue and claim the next one."""
        if draft is not None:
            self.services.queue.skip(draft.item.prediction_id, user)
        return self.next(user, domain, extra)

    def refilter(
        self, user: str, draft: Draft | None, domain: str | None, extra: QueueFilter | None
    ) -> Draft | None:
        """Give the open item back (keeping its place) and claim the next one under a new filter.

        Without the release, my own claim would come first again whatever the filter's order.
        """
        if draft is not None:
            self.services.queue.release(draft.item.prediction_id, user)
        return self.next(user, domain, extra)

    def queue_state(
        self, user: str, domain: str | None, extra: QueueFilter | None = None
    ) -> QueueState:
        """How many items are left for me under this filter, and how many others hold."""
        query_filter = queue_filter(domain, extra)
        return QueueState(
            self.services.queue.count_pending(user, query_filter),
            self.services.queue.held_elsewhere(user, query_filter),
        )

    def submit(
        self,
        user: User,
        draft: Draft | None,
        corrected: str | None,
        ratings: Mapping[str, str | int | None],
        verdict: str | None,
        tags: list[str] | None,
        notes: str | None,
    ) -> AnnotationRecord:
        """Store `user`'s annotation with their role (the store fills an unknown real state).

        The editor's text goes back into the form the domain stores (`ui.structured`). The
        role is what the trust rule reads (`backend.trust`): one annotator's correction is kept
        and shown to them, but answers for nobody else until it is trusted.

        Raises:
            BadInputError: there is no item, the edited document no longer parses, or the
                annotation breaks the rules (nothing saved).
            ConflictError: my annotation changed since it was opened (nothing saved).
        """
        if draft is None:
            raise BadInputError("There is nothing to submit: take the next item from the queue.")
        correction = stored(corrected or "", draft.form)
        try:
            annotation = AnnotationInput(
                verdict=verdict or None,  # type: ignore[arg-type]
                corrected_observation=correction,
                ratings=Ratings(**{k: int(v) if v else None for k, v in ratings.items()}),
                tags=list(tags or []),
                notes=notes or "",
            )
        except ValidationError as exc:
            raise BadInputError(explain(exc)) from None
        return self.services.annotations.submit(
            draft.item.prediction_id, user.name, annotation, draft.version, role=user.role
        )

    def _draft(self, item: QueueItem, user: str) -> Draft:
        mine = self.services.annotations.list_annotations(
            prediction_id=item.prediction_id, annotator=user, limit=1
        )
        if not mine:
            empty: dict[str, int | None] = dict.fromkeys(RATING_NAMES)
            start = starting_text(item, item.predicted_observation)
            return Draft(item, start, empty).editing(start)
        record = mine[0]
        earlier = Draft(
            item,
            record.corrected_observation,
            dict(record.ratings),
            record.verdict,
            tuple(record.tags),
            record.notes,
            record.version,
        )
        return earlier.editing(record.corrected_observation)
