"""Writing sessions in tests through the one recorder (`SessionStore.record`).

A session is created by its first stored step, so tests hold a `SessionWriter` rather than a
session id: its first `add` creates the session, later ones append to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backend.provenance import Correction, Live, Provenance, Recorded
from backend.recording import NewSession, ScoreLike, StepInput, StepRecord
from backend.types import HistoryMode, Prediction, SamplingParams, Turn
from storage.sessions import SessionStore


def source_of(origin: str | None, domain: str = "terminal") -> Provenance | None:
    """A test observation's source, as its origin says (None without an origin)."""
    if origin == "recorded":
        return Recorded(dataset="test", row_id="test-recording")
    if origin == "live":
        return Live(sandbox=domain)
    if origin == "annotator":
        return Correction(annotation_id=0, author="test-annotator")
    return None


class SessionWriter:
    """Records steps into one session, created with the first of them.

    Args:
        store: the recorder.
        domain: the session's domain.
        engine: its engine name.
        model: its model id.
        history_mode: its history mode.
        session: other `NewSession` fields (owner, initial_state, system_prompt, ...).
    """

    def __init__(
        self,
        store: SessionStore,
        domain: str = "terminal",
        engine: str = "fake",
        model: str = "fake-model",
        history_mode: str = "teacher_forced",
        params: SamplingParams | None = None,
        **session: Any,
    ) -> None:
        self.store = store
        self.new = NewSession(
            domain=domain,
            history_mode=HistoryMode(history_mode),
            params=params or SamplingParams(),
            engine=engine,
            model=model,
            **session,
        )
        self.session_id: int | None = None

    def add(
        self,
        action: str,
        real: str | None = None,
        origin: str | None = None,
        prediction: Prediction | None = None,
        scores: Sequence[ScoreLike] = (),
        prefix: Sequence[Turn] = (),
        provenance: Provenance | None = None,
    ) -> StepRecord:
        """Store one step (creating the session first time) and return what was stored.

        The real observation's source is `provenance`, else a test one its origin says.
        """
        target = self.new if self.session_id is None else self.session_id
        source = provenance or (source_of(origin, self.new.domain) if real is not None else None)
        step = StepInput(  # type: ignore[arg-type]
            action, real, origin, prediction, scores, provenance=source
        )
        record = self.store.record(target, step, prefix)
        self.session_id = record.session_id
        return record
