"""The rules an annotation must follow, in one place for the Annotate page and for imports.

`AnnotationInput` (storage.annotations.types) applies `shape_problem` when it is built, and
`AnnotationInput.settled` applies `prediction_problem` against the prediction it judges; the
store settles every annotation before writing it, whichever way it came in. `RULES` is the text
the page shows and the manual quotes.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError

from backend.verdicts import Verdict, same_observation

RULES = (
    "**Verdict (required).** *Accept*: the prediction is right as it stands; leave it unedited "
    "(a correction that changes it contradicts accept and is refused). *Reject*: the prediction "
    "is wrong; edit it into the real next state (a correction identical to the prediction is "
    "refused). *Cannot tell*: you cannot judge it; it never becomes the real state and yields no "
    "training rows. **Ratings**: all five dimensions or none, and a reject needs all five."
)


def shape_problem(
    verdict: Verdict, corrected: str | None, ratings: Mapping[str, int | None]
) -> str | None:
    """What is wrong with an annotation on its own (None when nothing is)."""
    missing = [dim for dim, value in ratings.items() if value is None]
    if verdict is Verdict.REJECT:
        if corrected is None or not corrected.strip():
            return (
                "a reject needs a corrected_observation: the prediction edited into the real "
                "next state (or choose cannot tell)"
            )
        if missing:
            return f"a reject needs all five ratings (missing: {', '.join(missing)})"
    if missing and len(missing) < len(ratings):
        return f"rate all five dimensions or none (missing: {', '.join(missing)})"
    return None


def prediction_problem(verdict: Verdict, corrected: str | None, predicted: str) -> str | None:
    """What is wrong with an annotation given the prediction it judges (None when nothing is)."""
    if corrected is None:
        return None
    changed = not same_observation(corrected, predicted)
    if verdict is Verdict.ACCEPT and changed:
        return (
            "accept means the prediction is right as it stands, but the correction changes it: "
            "choose reject to keep the correction, or undo the edit to accept the prediction"
        )
    if verdict is Verdict.REJECT and not changed:
        return (
            "a reject needs a correction that differs from the prediction, and this one is the "
            "prediction unchanged: edit it into the real next state, or choose cannot tell"
        )
    return None


def explain(exc: ValidationError) -> str:
    """A validation failure as one line a person can act on (no pydantic jargon)."""
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"])
        if err["type"] == "json_invalid":
            # Each row is one line: pydantic's "at line 1" would contradict our line numbers.
            detail = str(err.get("ctx", {}).get("error", "")).replace(
                " at line 1 column", " at column"
            )
            parts.append(f"not valid JSON ({detail})")
        elif err["type"] == "value_error":
            message = str(err.get("ctx", {}).get("error", err["msg"]))
            parts.append(f"{where}: {message}" if where else message)
        else:
            parts.append(f"{where or 'row'}: {err['msg']}")
    return "; ".join(parts)
