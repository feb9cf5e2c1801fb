"""What an annotator's verdict says about the truth of a prediction.

One meaning for every reader: the annotation rules (storage), the real state an annotation may
set, and every export format. "accept" says the prediction is the true next state, "reject"
says the correction is, and "cannot tell" says nothing about the truth.
"""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    """An annotator's judgement of a prediction."""

    ACCEPT = "accept"
    REJECT = "reject"
    CANNOT_TELL = "cannot_tell"

    @property
    def label(self) -> str:
        """How people read it ("cannot tell" with a space)."""
        return self.value.replace("_", " ")


def same_observation(first: str, second: str) -> bool:
    """Whether two observations are the same text, ignoring surrounding whitespace.

    Editors add or drop a final newline without meaning to; that is not a correction.
    """
    return first.strip() == second.strip()


def truth(verdict: Verdict | str, predicted: str, corrected: str) -> str | None:
    """The true next state an annotation establishes, None when it establishes none."""
    match Verdict(verdict):
        case Verdict.ACCEPT:
            return predicted
        case Verdict.REJECT:
            return corrected
        case Verdict.CANNOT_TELL:
            return None
