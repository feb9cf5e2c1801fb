"""Where an observation came from, as data: the one field every "answered by" label is read from.

Reality is a claim with a source (DESIGN, "Provenance and trust"). Four kinds:
- `recorded`: an imported or bundled recording (its dataset, file, row id and a content
  fingerprint of the step, `backend.grounding.fingerprint`);
- `live`: a run in a real environment or an exact executor (its sandbox kind, run, time);
- `correction`: an annotation (its id, author, the author's role, its review state under the
  trust rule, `backend.trust`);
- `predicted`: a world model (engine, model, the world spec's digest).

Stored as JSON beside every observation (`turn`, `step`, `prediction`), exported with it, and
shown in words by `describe`. A value is frozen and validated: an unknown kind is refused.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class Recorded(BaseModel):
    """An observation of a stored recording.

    Attributes:
        dataset: the recording's source (the importer or bundle that made it).
        file: the file it was imported from, when known.
        row_id: the recording's id as the import gave it.
        turn: the 1-based turn within it, when the observation is one turn's.
        fingerprint: the step's content fingerprint (domain, normalised history, action).
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["recorded"] = "recorded"
    dataset: str
    file: str | None = None
    row_id: str
    turn: int | None = None
    fingerprint: str | None = None


class Live(BaseModel):
    """An observation a real environment (or an exact executor) returned.

    Attributes:
        sandbox: what ran it: a live environment's domain, or `executor:<domain>`.
        run: the run it belongs to (a session or recording id), when known.
        at: when it was observed (UTC).
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["live"] = "live"
    sandbox: str
    run: str | None = None
    at: datetime | None = None


ReviewState = Literal["unreviewed", "trusted", "rejected"]


class Correction(BaseModel):
    """An observation an annotator wrote (a correction, or a prediction they accepted).

    Attributes:
        annotation_id: the annotation.
        author: the annotator's name.
        role: the author's role when they wrote it (None: not known).
        review: its state under the trust rule when this value was made.
        trusted_by: why it is trusted ("reviewer", "admin", "2 agreeing annotators"), "" if not.
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["correction"] = "correction"
    annotation_id: int
    author: str
    role: str | None = None
    review: ReviewState = "unreviewed"
    trusted_by: str = ""


class Predicted(BaseModel):
    """An observation a world model predicted.

    Attributes:
        engine: the engine's registered name.
        model: the model id.
        spec: the digest of the world spec it ran under, when known.
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["predicted"] = "predicted"
    engine: str
    model: str
    spec: str | None = None


Provenance = Annotated[Recorded | Live | Correction | Predicted, Field(discriminator="kind")]
"""One observation's source; `kind` says which."""

_ADAPTER: TypeAdapter[Recorded | Live | Correction | Predicted] = TypeAdapter(Provenance)


def parse_provenance(data: Any) -> Recorded | Live | Correction | Predicted:
    """A stored (JSON) provenance as its typed value.

    Raises:
        pydantic.ValidationError: not a provenance of a known kind.
    """
    return _ADAPTER.validate_python(data)


def stored(provenance: Recorded | Live | Correction | Predicted) -> dict[str, Any]:
    """The JSON a provenance is stored and exported as."""
    return provenance.model_dump(mode="json", exclude_none=True)


def _day(at: datetime | None) -> str:
    return f", {at.day} {at:%b}" if at is not None else ""


def describe(provenance: Recorded | Live | Correction | Predicted) -> str:
    """The source in words, for every label that says who answered ("" never).

    Examples: "the recording agentworldbench row 12, turn 3", "a live terminal run #12, 4 Dec",
    "an unreviewed correction by anonymous-3f2a", "transformers (SmolLM2-135M-Instruct)".
    """
    match provenance:
        case Recorded():
            turn = f", turn {provenance.turn}" if provenance.turn is not None else ""
            return f"the recording {provenance.row_id} ({provenance.dataset}){turn}"
        case Live():
            run = f" #{provenance.run}" if provenance.run else ""
            return f"a live {provenance.sandbox} run{run}{_day(provenance.at)}"
        case Correction():
            state = (
                f"a trusted correction ({provenance.trusted_by})"
                if provenance.review == "trusted"
                else f"an {provenance.review} correction"
            )
            return f"{state} by {provenance.author}"
        case Predicted():
            return (
                f"{provenance.engine} ({provenance.model})"
                if provenance.model
                else (provenance.engine)
            )
