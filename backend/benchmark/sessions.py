"""A benchmark's predictions stored as sessions, so they reach Annotate, exports and agreement.

Each engine's items of one trajectory share one session of kind `bench`: its steps are the
trajectory's recorded turns, and each evaluated turn's step holds the prediction, with the exact
chat it was made from, its metric scores and, when a judge ran, the judge's verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from backend.benchmark.items import BenchItem
from backend.recording import NewSession, Recorder, SessionTarget
from backend.scoring.judge import JudgeResult, judge_scores
from backend.spec import WorldSpec
from backend.stepping import Scores, record_prediction
from backend.types import Prediction, SimRequest

BENCH_KIND = "bench"


@dataclass
class _Stored:
    """A stored bench session: its id and how many steps it holds."""

    session_id: int
    length: int


@dataclass
class BenchSessions:
    """Records one run's predictions through the one recorder.

    Args:
        recorder: the recorder (`storage.sessions.SessionStore`).
        run_id: the stored benchmark run the sessions belong to.
    """

    recorder: Recorder
    run_id: int | None = None
    _sessions: dict[tuple[str, str, str], _Stored] = field(default_factory=dict, init=False)

    def record(
        self,
        engine: str,
        item: BenchItem,
        request: SimRequest,
        prediction: Prediction,
        scores: Scores,
        world: WorldSpec | None = None,
    ) -> int:
        """Store one item's prediction as the step of its turn; returns the prediction id.

        The session of (engine, trajectory) is created by its first item, with the turns before
        it as recorded steps; a later item adds the turns between. An item whose turn the session
        already passed (items out of turn order) starts a session of its own. A new session
        stores `world`, the engine's resolved world spec.
        """
        key = (engine, item.domain, item.trajectory_key)
        stored = self._sessions.get(key)
        target: SessionTarget
        if stored is None or item.turn_index < stored.length:
            target = NewSession.for_request(
                request, BENCH_KIND, bench_run_id=self.run_id, world=world
            )
            prefix = item.history
        else:
            target, prefix = stored.session_id, item.history[stored.length :]
        outcome = record_prediction(self.recorder, target, request, prediction, prefix, scores)
        self._sessions[key] = _Stored(outcome.session_id, outcome.record.index + 1)
        return outcome.prediction_id

    def judged(self, prediction_id: int, verdict: JudgeResult) -> None:
        """Store a judge's verdict of a recorded prediction."""
        self.recorder.add_scores(prediction_id, judge_scores(verdict))
