"""Training runs: one row per `awp train` or Train-page run, updated as it goes.

The run folder holds the model, checkpoints and `train_results.json`; this row holds what the
Train page lists and draws (status, progress, the loss curve, the before/after table), and the
data's hash, so two runs can be told to have seen the same data.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, CheckConstraint, Float, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from storage.models.base import Base, TimestampMixin


class TrainRunStatus(StrEnum):
    """Where a run stands: `running` until it finishes or fails."""

    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"


_STATUSES = "(" + ", ".join(f"'{status.value}'" for status in TrainRunStatus) + ")"


class TrainRunRow(TimestampMixin, Base):
    """One training run.

    `hyper_params` is the run's `TrainConfig`; `losses` the logged (step, loss) pairs;
    `eval_table` the before/after table (`backend.training.evaluate.EvalTable`) once finished.
    """

    __tablename__ = "train_run"
    __table_args__ = (CheckConstraint(f"status IN {_STATUSES}", name="status"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    method: Mapped[str] = mapped_column(String(16))
    data_source: Mapped[str] = mapped_column(Text)
    data_hash: Mapped[str | None] = mapped_column(String(64))
    base_model: Mapped[str] = mapped_column(Text)
    hyper_params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    out_dir: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default=TrainRunStatus.RUNNING.value)
    message: Mapped[str | None] = mapped_column(Text)
    step: Mapped[int] = mapped_column(Integer, default=0)
    max_steps: Mapped[int] = mapped_column(Integer, default=0)
    tokens_per_s: Mapped[float | None] = mapped_column(Float)
    losses: Mapped[list[Any]] = mapped_column(JSON, default=list)
    eval_table: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    model_dir: Mapped[str | None] = mapped_column(Text)
    owner: Mapped[str | None] = mapped_column(String(255), index=True)
