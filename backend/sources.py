"""Which provenance each writer gives an observation: one place for every writer path.

`backend.provenance` says what a source is; this says which source an observation of a recording,
a live run or a request's reference has, so storage, the step path and the environments give the
same observation the same source:

- a recording's turn: its own (a live run marks its turns `Live` as it takes them), else
  `Recorded` from the recording (its source as dataset, its import file, its id, the turn);
- a step's real observation: what the request says its reference is (`reference_provenance`),
  else what its origin and own recording say;
- an exact answer: the source of the reality that answered.
"""

from __future__ import annotations

from datetime import UTC, datetime

from backend.grounding.fingerprint import recording_path
from backend.provenance import Live, Provenance, Recorded
from backend.types import SimRequest, Trajectory

FILE_KEY = "file"
"""The metadata key an importer keeps the file a recording came from under."""


def import_file(trajectory: Trajectory) -> str | None:
    """The file a recording was imported from, when its importer kept it."""
    found = trajectory.metadata.get(FILE_KEY)
    return found if isinstance(found, str) and found else None


def recorded(trajectory: Trajectory, index: int) -> Recorded:
    """The source of a stored recording's 0-based turn `index`, as its import gave it."""
    return Recorded(
        dataset=trajectory.source,
        file=import_file(trajectory),
        row_id=trajectory.id,
        turn=index + 1,
    )


def turn_provenance(trajectory: Trajectory, index: int) -> Provenance:
    """The source of a recording's 0-based turn: the turn's own, else the recording's."""
    own = trajectory.turns[index].provenance
    return own if own is not None else recorded(trajectory, index)


def fingerprinted(source: Provenance, fingerprint: str | None) -> Provenance:
    """A recorded source with its step's content fingerprint (`backend.grounding.fingerprint`).

    What the leakage guard compares travels with the observation; other kinds (a live run)
    are returned as they are.
    """
    if isinstance(source, Recorded) and source.fingerprint is None and fingerprint:
        return source.model_copy(update={"fingerprint": fingerprint})
    return source


def turn_sources(trajectory: Trajectory) -> list[Provenance]:
    """The source of each turn of a recording, each recorded one with its fingerprint."""
    path = recording_path(trajectory)
    return [
        fingerprinted(turn_provenance(trajectory, index), path[index])
        for index in range(len(trajectory.turns))
    ]


def live(sandbox: str, run: str | None = None) -> Live:
    """A live environment's (or exact executor's) observation, taken now."""
    return Live(sandbox=sandbox, run=run, at=datetime.now(UTC))


def live_answer(domain: str, answered_by: str, run: str | None = None) -> Live:
    """The source of an observation a live environment or an exact executor gave, now."""
    return live(f"executor:{domain}" if answered_by == "executor" else domain, run)


def own_run(request: SimRequest) -> str | None:
    """The recording a request's step belongs to (a live session's run), when it has one."""
    return request.grounding_exclude[0] if request.grounding_exclude else None


def reference_provenance(request: SimRequest) -> Provenance | None:
    """The source of a request's reference (None without one).

    The request's own `reference_provenance` when it carries one; else its origin says: a live
    run of its domain, or turn `len(history) + 1` of its own recording (`grounding_exclude`),
    which is where every recorded reference of the step path is read from.

    Raises:
        ValueError: an annotator's reference without its provenance (only the annotation
            store knows the correction it is, `backend.provenance.Correction`).
    """
    if request.reference is None:
        return None
    if request.reference_provenance is not None:
        return request.reference_provenance
    if request.reference_origin == "live":
        return live(request.domain, own_run(request))
    if request.reference_origin == "recorded":
        own = own_run(request) or "unknown"
        return Recorded(dataset="recording", row_id=own, turn=len(request.history) + 1)
    raise ValueError("an annotator's reference needs its Correction provenance")
