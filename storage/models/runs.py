"""Runs: one row per benchmark, training or rollout run, whichever edge started it.

Every kind shares one lifecycle (running, then finished, failed or interrupted), one message
written for people, progress counters and an owner; what differs lives in JSON columns: `spec`
(what was asked), `points` (progress logged on the way, e.g. a training loss curve) and
`results` (what it produced). A run's files (items, checkpoints, rollouts.jsonl) stay in its
`out_dir`; this row holds what listings, tables and curves need.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, CheckConstraint, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from storage.models.base import Base, TimestampMixin


class RunKind(StrEnum):
    """What a run does."""

    BENCH = "bench"
    TRAIN = "train"
    ROLLOUT = "rollout"


class RunStatus(StrEnum):
    """Where a run stands: `running` until it finishes, fails or is interrupted."""

    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


def _one_of(values: type[StrEnum]) -> str:
    return "(" + ", ".join(f"'{value.value}'" for value in values) + ")"


class RunRow(TimestampMixin, Base):
    """One run of any kind.

    `done`/`total` count its unit of work (benchmark predictions, training steps, rollout
    episodes); `failures` counts units that failed without ending the run. `process` names the
    process running it (`storage.processes`), so a run whose process died is found and marked.
    """

    __tablename__ = "run"
    __table_args__ = (
        CheckConstraint(f"kind IN {_one_of(RunKind)}", name="kind"),
        CheckConstraint(f"status IN {_one_of(RunStatus)}", name="status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), index=True)
    status: Mapped[str] = mapped_column(String(16), default=RunStatus.RUNNING.value)
    message: Mapped[str | None] = mapped_column(Text)
    out_dir: Mapped[str | None] = mapped_column(Text)
    owner: Mapped[str | None] = mapped_column(String(255), index=True)
    done: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer, default=0)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    spec: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    points: Mapped[list[Any]] = mapped_column(JSON, default=list)
    results: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    process: Mapped[str | None] = mapped_column(String(128))
