"""What the Annotate page shows for a draft: context, prediction, truth, editor, queue, progress.

`show` returns the page's values by field name (`AnnotatePage` fields, ratings as
`rate_<dimension>`), so an event that refuses something can update only the message it owes.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import gradio as gr

from backend.domains.base import get_domain
from backend.errors import BadInputError
from backend.verdicts import Verdict
from storage.annotations import AnnotationRecord, CorrectionPlace
from ui.annotate import RATING_NAMES, Draft, QueueState
from ui.pages.annotate_context import (
    CONTEXT_TITLE,
    conversation_html,
    conversation_title,
    origin_html,
    reasoning_html,
)
from ui.provenance import grounding_html
from ui.renderers import render as render_observation
from ui.renderers import render_diff
from ui.renderers.base import esc
from ui.services import Services
from ui.structured import Form, pretty, stored
from ui.users import User
from ui.views import chip, confidence_chip, empty

PROGRESS_HEADERS = (
    "annotator",
    "domain",
    "annotated",
    "accepted",
    "rejected",
    "cannot tell",
    "last",
)
EMPTY_QUEUE = (
    "The queue is empty for this filter. Simulate steps on the Playground or Replay pages to "
    "fill it, or choose another domain."
)
BANNER = "border-radius:8px;padding:10px 14px;margin:4px 0;font-weight:600;border:1px solid"
TONES = {
    "saved": "background:#dcfce7;color:#14532d;border-color:#16a34a",
    "refused": "background:#fee2e2;color:#7f1d1d;border-color:#dc2626",
}


def banner(text: str, tone: str) -> str:
    """A message nobody can miss: green when something was saved, red when refused."""
    return f'<div class="an-banner an-{tone}" style="{BANNER};{TONES[tone]}">{esc(text)}</div>'


def saved_banner(record: AnnotationRecord) -> str:
    """What was saved (prediction, verdict, version), and whether its truth is trusted yet."""
    review = record.review
    trust = ""
    if record.verdict is not Verdict.CANNOT_TELL and review is not None:
        trust = (
            f" It is trusted ({review.trusted_by}): it is the real state for everybody."
            if review.trusted
            else " Until it is trusted (a reviewer's, or agreeing annotators'), it is the real "
            "state for nobody but you."
        )
    return banner(
        f"Saved version {record.version} of your annotation of prediction "
        f"#{record.prediction_id}: {record.verdict.label}.{trust}",
        "saved",
    )


def progress_rows(services: Services, user: User) -> list[list[Any]]:
    """My progress per domain; everyone's for admins."""
    rows = services.progress.annotators(None if user.is_admin else user.name)
    table = [
        [
            p.annotator,
            p.domain,
            p.annotated,
            p.accepted,
            p.rejected,
            p.cannot_tell,
            p.last_at.strftime("%Y-%m-%d %H:%M") if p.last_at else "",
        ]
        for p in rows
    ]
    return table or [["", "", 0, 0, 0, 0, ""]]


def _when(moment: datetime, now: datetime) -> str:
    minutes = max(1, round((moment - now).total_seconds() / 60))
    return f"{moment:%H:%M} UTC (in {minutes} min)"


def queue_line(user: User, state: QueueState, draft: Draft | None) -> str:
    """Who I annotate as, how many items are left for me, and how many others are reviewing."""
    parts = [chip("you", user.name)]
    if draft is not None:
        parts.append(chip("left", f"{state.left} in this queue, this one included"))
    if state.held.count:
        parts.append(chip("being reviewed by others", str(state.held.count)))
    return f'<div class="awp-status">{"".join(parts)}</div>'


def empty_queue(state: QueueState, now: datetime | None = None) -> str:
    """Why there is nothing to show, and when items others hold may come back."""
    held = state.held
    if not held.count or held.first_expiry is None or held.last_expiry is None:
        return empty(EMPTY_QUEUE)
    now = now or datetime.now(UTC)
    items = "item is" if held.count == 1 else "items are"
    expiry = (
        f"that claim expires at {_when(held.last_expiry, now)}"
        if held.count == 1
        else f"their claims expire between {_when(held.first_expiry, now)} and "
        f"{_when(held.last_expiry, now)}"
    )
    return empty(
        f"The queue is empty for you: {held.count} {items} being reviewed by other annotators; "
        f"{expiry}, and any not submitted by then come back here. Simulate steps on the "
        "Playground or Replay pages to add more, or choose another domain."
    )


def header(draft: Draft, places: Mapping[int, CorrectionPlace] | None = None) -> str:
    """Which prediction this is, where it comes from, its task and its scores.

    A grounded prediction links each real step it was shown (`places`: the stored step of each
    correction among them, to name it by).
    """
    item = draft.item
    chips = [
        chip("prediction", f"#{item.prediction_id}"),
        chip("session", f"#{item.session_id} step {item.step_index + 1}"),
        chip("domain", get_domain(item.domain).title),
        chip("engine", f"{item.engine} · {item.model}"),
        chip("history", item.history_mode),
        chip("editing", f"your version {draft.version}")
        if draft.version
        else chip("new", "annotation"),
        confidence_chip(item.confidence),
    ]
    chips += [chip(name, f"{value:.2f}") for name, value in item.scores.items()]
    task = (
        f'<div style="margin-top:6px"><b>Task:</b> {esc(item.task)}</div>'
        if item.task.strip()
        else ""
    )
    grounding = grounding_html(item.grounded_by, places)
    return f'<div class="awp-status">{"".join(chips)}{grounding}</div>{task}'


def blank(user: User, state: QueueState, message: str, progress: list[list[Any]]) -> dict:
    """Values for an empty queue: everything cleared, the reason shown."""
    values: dict[str, Any] = dict.fromkeys(
        (
            "action",
            "context",
            "reasoning",
            "before",
            "predicted",
            "real_origin",
            "real",
            "editor",
            "editor_note",
            "preview",
            "diff",
        ),
        "",
    )
    values |= {f"rate_{name}": None for name in RATING_NAMES}
    return values | {
        "state": None,
        "open_note": "",
        "queue": queue_line(user, state, None),
        "header": empty_queue(state),
        "context_box": gr.Accordion(label=CONTEXT_TITLE),
        "use_real": gr.Button(visible=False),
        "reset": gr.Button(visible=False),
        "verdict": None,
        "tags": [],
        "notes": "",
        "message": message,
        "progress": progress,
    }


def show(
    draft: Draft | None,
    user: User,
    state: QueueState,
    message: str,
    progress: list[list[Any]],
    places: Mapping[int, CorrectionPlace] | None = None,
) -> dict[str, Any]:
    """Every value the page shows for `draft` (None: the queue is empty).

    `places` names the corrections that grounded the prediction (`header`).
    """
    if draft is None:
        return blank(user, state, message, progress)
    item = draft.item
    renderer = get_domain(item.domain).renderer
    before = item.previous_observation
    known = item.real_observation is not None
    real = render_observation(renderer, item.real_observation, before) if known else ""
    preview, diff, _ = correction_views(draft, draft.corrected)
    values: dict[str, Any] = {
        f"rate_{name}": str(draft.ratings[name]) if draft.ratings.get(name) else None
        for name in RATING_NAMES
    }
    return values | {
        "state": draft,
        "open_note": "",
        "queue": queue_line(user, state, draft),
        "header": header(draft, places),
        "action": item.action,
        "context_box": gr.Accordion(label=conversation_title(item.messages)),
        "context": conversation_html(item.messages, item.history_mode),
        "reasoning": reasoning_html(item.reasoning),
        "before": render_observation(renderer, before),
        "predicted": render_observation(renderer, item.predicted_observation, before),
        "real_origin": origin_html(item.origin, known, item.withheld),
        "real": real,
        "use_real": gr.Button(visible=known),
        "reset": gr.Button(visible=True),
        "editor": editor(draft.corrected, draft.form),
        "editor_note": "",
        "preview": preview,
        "diff": diff,
        "verdict": draft.verdict.value if isinstance(draft.verdict, Verdict) else None,
        "tags": list(draft.tags),
        "notes": draft.notes,
        "message": message,
        "progress": progress,
    }


def editor(text: str, form: Form | None) -> gr.Code:
    """The editor showing `text`: a JSON or XML document indented and highlighted."""
    return gr.Code(pretty(text, form), language=form.language if form else None)


def correction_views(draft: Draft | None, edited: str) -> tuple[Any, Any, str]:
    """The correction rendered, its diff against the real state (else the prediction), a note.

    The note goes beside the editor: empty, or why the edited document no longer parses (the
    preview and the diff then stay as they were).
    """
    if draft is None:
        return "", "", ""
    try:
        corrected = stored(edited, draft.form)
    except BadInputError as exc:
        return gr.skip(), gr.skip(), banner(str(exc), "refused")
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
    return render_observation(renderer, corrected, item.previous_observation), diff, ""
