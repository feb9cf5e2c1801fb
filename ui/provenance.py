"""Where a grounded prediction's demonstrations came from: each source named and linked.

Grounding stores provenance ids (`<recording>#<turn>` or `annotation:<id>`,
`backend.grounding.transitions`); a person reads them as "recording X, turn 2" or "correction of
session #3, step 2 (terminal)", each a deep link the app opens on load: a recording's turn on the
Replay page (`?tab=replay&recording=&turn=`), a correction on the Sessions page (`?annotation=`).
A correction's place comes from the caller (`AnnotationStore.places`, one query for all the ids
`correction_ids` finds); without it (deleted since) it is "correction #7". Pure over plain data:
every value is escaped and every link is URL-encoded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from backend.provenance import Provenance, describe
from backend.types import AnsweredBy, Prediction
from storage.annotations.types import CorrectionPlace
from ui.renderers.base import esc

CORRECTION_PREFIX = "annotation:"

ANSWERERS: dict[AnsweredBy, str] = {
    "model": "the model",
    "record": "the record",
    "executor": "the executor",
    "live": "the live environment",
}
"""Who answered (`answered_by`), as the labels name it."""


def source_words(provenance: Provenance | None) -> str:
    """An observation's source in words (`describe`), "an unknown source" for none stored."""
    return describe(provenance) if provenance is not None else "an unknown source"


def real_words(origin: str | None, provenance: Provenance | None) -> str:
    """A real observation's source as its caption says it: "live: a live terminal run #3"."""
    if provenance is None:
        return origin or "unknown"
    return f"{origin or provenance.kind}: {describe(provenance)}"


def answerer_words(prediction: Prediction) -> str:
    """Who answered and from where, for a column or chip already titled "by" / "answered by"."""
    return answered_words(prediction).removeprefix("predicted by ").removeprefix("answered by ")


def answered_words(prediction: Prediction) -> str:
    """Who answered and where its observation came from, from the one provenance field.

    "predicted by transformers (SmolLM2-135M-Instruct)", "answered by the record: a live
    terminal run #live/terminal/..., 4 Dec", "answered by the record: an unreviewed correction
    by anonymous-3f2a": every label that says who answered reads this.
    """
    source = source_words(prediction.provenance)
    if prediction.answered_by == "model":
        return f"predicted by {source}"
    return f"answered by {ANSWERERS[prediction.answered_by]}: {source}"


@dataclass(frozen=True)
class Source:
    """One grounding source as a person reads it.

    Attributes:
        ref: the stored provenance id.
        label: what it is, in words.
        href: the deep link that opens it ("" when the id has no known form).
    """

    ref: str
    label: str
    href: str


def correction_ids(refs: Iterable[str]) -> list[int]:
    """The annotation ids among provenance ids (their places need a database lookup)."""
    found = (
        ref.removeprefix(CORRECTION_PREFIX) for ref in refs if ref.startswith(CORRECTION_PREFIX)
    )
    return [int(number) for number in found if number.isdigit()]


def source(ref: str, places: Mapping[int, CorrectionPlace]) -> Source:
    """How one provenance id is named and opened.

    Args:
        ref: `<recording>#<turn>` (turns from 1) or `annotation:<id>`.
        places: the stored step each known correction corrects.
    """
    number = ref.removeprefix(CORRECTION_PREFIX)
    if ref.startswith(CORRECTION_PREFIX) and number.isdigit():
        href = "?" + urlencode({"tab": "sessions", "annotation": number})
        place = places.get(int(number))
        if place is None:
            return Source(ref, f"correction #{number}", href)
        label = (
            f"correction of session #{place.session_id}, step {place.step_index + 1} "
            f"({place.domain})"
        )
        return Source(ref, label, href)
    recording, _, turn = ref.rpartition("#")
    if recording and turn.isdigit():
        href = "?" + urlencode({"tab": "replay", "recording": recording, "turn": turn})
        return Source(ref, f"recording {recording}, turn {turn}", href)
    return Source(ref, ref, "")


def grounding_html(refs: Sequence[str], places: Mapping[int, CorrectionPlace] | None = None) -> str:
    """The chip "grounded by N real steps", unfolding to one link per source ("" when not grounded).

    Each link opens its source in a new tab, so the prediction stays where it is.
    """
    if not refs:
        return ""
    steps = "step" if len(refs) == 1 else "steps"
    items = []
    for found in (source(ref, places or {}) for ref in refs):
        label = esc(found.label)
        link = (
            f'<a href="{esc(found.href)}" target="_blank" rel="noopener" '
            f'data-ref="{esc(found.ref)}">{label}</a>'
            if found.href
            else label
        )
        items.append(f"<li>{link}</li>")
    return (
        f'<details class="awp-grounding"><summary><span class="awp-chip"><b>grounded</b> by '
        f"{len(refs)} real {steps}</span></summary><ol>{''.join(items)}</ol></details>"
    )
