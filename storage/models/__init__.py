"""Typed SQLAlchemy models; importing this package registers every table on `Base.metadata`."""

from storage.models.annotations import (
    RATING_DIMENSIONS,
    AnnotationEditRow,
    AnnotationRow,
    AnnotatorRow,
    ClaimRow,
    SkipRow,
)
from storage.models.arena import ArenaVoteRow, RealOrNotVoteRow
from storage.models.base import Base, utcnow
from storage.models.runs import RunKind, RunRow, RunStatus
from storage.models.sessions import (
    ObservationOrigin,
    PredictionRow,
    PromptTextRow,
    ScoreRow,
    SessionKind,
    SessionRow,
    StepRow,
)
from storage.models.trajectories import TrajectoryRow, TurnRow

__all__ = [
    "RATING_DIMENSIONS",
    "AnnotationEditRow",
    "AnnotationRow",
    "AnnotatorRow",
    "ArenaVoteRow",
    "Base",
    "ClaimRow",
    "ObservationOrigin",
    "PredictionRow",
    "PromptTextRow",
    "RealOrNotVoteRow",
    "RunKind",
    "RunRow",
    "RunStatus",
    "ScoreRow",
    "SessionKind",
    "SessionRow",
    "SkipRow",
    "StepRow",
    "TrajectoryRow",
    "TurnRow",
    "utcnow",
]
