"""What the Annotate page shows for a draft: context, prediction, truth, editor and progress."""

from __future__ import annotations

from typing import Any

from backend.domains.base import get_domain
from ui.annotate import RATING_NAMES, Draft
from ui.renderers import render as render_observation
from ui.renderers import render_diff
from ui.services import Services
from ui.users import User
from ui.views import chip, empty

PROGRESS_HEADERS = ("annotator", "domain", "annotated", "accepted", "rejected", "last")
EMPTY_QUEUE = (
    "The queue is empty for this filter. Simulate steps on the Playground or Replay pages to "
    "fill it, or choose another domain."
)


def progress_rows(services: Services, user: User) -> list[list[Any]]:
    """My progress per domain; everyone's for admins."""
    rows = services.progress.annotators(None if user.is_admin else user.name)
    table = [
        [p.annotator, p.domain, p.annotated, p.accepted, p.rejected,
         p.last_at.strftime("%Y-%m-%d %H:%M") if p.last_at else ""]
        for p in rows
    ]  # fmt: skip
    return table or [["", "", 0, 0, 0, ""]]


def header(draft: Draft) -> str:
    """Which prediction this is, where it comes from, and its scores."""
    item = draft.item
    chips = [
        chip("prediction", f"#{item.prediction_id}"),
        chip("session", f"#{item.session_id} step {item.step_index + 1}"),
        chip("domain", get_domain(item.domain).title),
        chip("engine", f"{item.engine} · {item.model}"),
        chip("editing", f"your version {draft.version}")
        if draft.version
        else chip("new", "annotation"),
    ]
    chips += [chip(name, f"{value:.2f}") for name, value in item.scores.items()]
    return f'<div class="awp-status">{"".join(chips)}</div>'


def show(draft: Draft | None, message: str, progress: list[list[Any]]) -> list[Any]:
    """Values for `AnnotatePage.shown`."""
    if draft is None:
        blank = [None, empty(EMPTY_QUEUE), "", "", "", "", "", "", ""]
        return [*blank, *[None] * len(RATING_NAMES), None, [], "", message, progress]
    item = draft.item
    renderer = get_domain(item.domain).renderer
    before = item.previous_observation
    if item.real_observation is None:
        real = empty("Unknown: your correction will be recorded as the real state.")
    else:
        real = render_observation(renderer, item.real_observation, before)
    verdict = {True: "accept", False: "reject"}.get(draft.accept)  # type: ignore[arg-type]
    ratings = [str(draft.ratings[name]) if draft.ratings.get(name) else None
               for name in RATING_NAMES]  # fmt: skip
    return [
        draft, header(draft), item.action, render_observation(renderer, before),
        render_observation(renderer, item.predicted_observation, before), real, draft.corrected,
        *correction_views(draft, draft.corrected), *ratings, verdict, list(draft.tags),
        draft.notes, message, progress,
    ]  # fmt: skip


def correction_views(draft: Draft | None, corrected: str) -> tuple[str, str]:
    """The correction rendered, and its diff against the real state (else the prediction)."""
    if draft is None:
        return "", ""
    item = draft.item
    renderer = get_domain(item.domain).renderer
    if item.real_observation is None:
        diff = render_diff(
            item.predicted_observation, corrected, "Prediction", "Your correction", kind=renderer
        )
    else:
        diff = render_diff(
            corrected, item.real_observation, "Your correction", "Real", kind=renderer
        )
    return render_observation(renderer, corrected, item.previous_observation), diff
