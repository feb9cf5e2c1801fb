"""Benchmark runs: one row per `awp bench` or Benchmark-page run, so past runs are listed by query.

The per-item rows stay in the run's `items.jsonl` (the resumable source of truth); this row holds
what a listing and a results table need, so neither has to scan folders that may be gone.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, CheckConstraint, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from storage.models.base import Base, TimestampMixin


class BenchRunStatus(StrEnum):
    """Where a run stands: `running` until it finishes, fails or is interrupted."""

    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


_STATUSES = "(" + ", ".join(f"'{status.value}'" for status in BenchRunStatus) + ")"


class BenchRunRow(TimestampMixin, Base):
    """One benchmark run: what was asked, where its files went, and its results once finished.

    `summary` is the run's `results.json` content (`BenchResults`: per-engine, per-domain means
    with both Overall averages), empty until the run finishes.
    """

    __tablename__ = "bench_run"
    __table_args__ = (CheckConstraint(f"status IN {_STATUSES}", name="status"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    dataset: Mapped[str] = mapped_column(Text)
    engines: Mapped[list[str]] = mapped_column(JSON)
    judge: Mapped[str | None] = mapped_column(String(64))
    out_dir: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default=BenchRunStatus.RUNNING.value)
    message: Mapped[str | None] = mapped_column(Text)
    item_count: Mapped[int] = mapped_column(Integer, default=0)
    failure_count: Mapped[int] = mapped_column(Integer, default=0)
    summary: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    owner: Mapped[str | None] = mapped_column(String(255), index=True)
