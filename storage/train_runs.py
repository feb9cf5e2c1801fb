"""Training runs in SQL: a row at start, progress as it trains, the results at the end.

`app.training` wraps `backend.training.service.train` so that the CLI and the Train page record
the same way; backend code never sees the database.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.errors import NotFoundError
from storage.db import SessionFactory, session_scope
from storage.models import TrainRunRow, TrainRunStatus


@dataclass(frozen=True)
class TrainRunRecord:
    """One stored training run, detached from the database."""

    id: int
    method: str
    data_source: str
    data_hash: str | None
    base_model: str
    hyper_params: Mapping[str, Any]
    out_dir: str
    status: str
    message: str | None
    step: int
    max_steps: int
    tokens_per_s: float | None
    losses: list[tuple[int, float]]
    eval_table: Mapping[str, Any]
    model_dir: str | None
    owner: str | None
    created_at: datetime
    updated_at: datetime


def _record(row: TrainRunRow) -> TrainRunRecord:
    return TrainRunRecord(
        id=row.id,
        method=row.method,
        data_source=row.data_source,
        data_hash=row.data_hash,
        base_model=row.base_model,
        hyper_params=dict(row.hyper_params),
        out_dir=row.out_dir,
        status=row.status,
        message=row.message,
        step=row.step,
        max_steps=row.max_steps,
        tokens_per_s=row.tokens_per_s,
        losses=[(int(step), float(loss)) for step, loss in row.losses],
        eval_table=dict(row.eval_table),
        model_dir=row.model_dir,
        owner=row.owner,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


class TrainRunStore:
    """Starts, advances, ends, lists and reads training runs; every write commits at once.

    Args:
        factory: the session factory of a `storage.db.Database`.
    """

    def __init__(self, factory: SessionFactory) -> None:
        self._factory = factory

    def start(
        self,
        method: str,
        data_source: str,
        base_model: str,
        hyper_params: Mapping[str, Any],
        out_dir: str,
        owner: str | None = None,
    ) -> int:
        """Store a `running` run and return its id."""
        row = TrainRunRow(
            method=method,
            data_source=data_source,
            base_model=base_model,
            hyper_params=dict(hyper_params),
            out_dir=out_dir,
            owner=owner,
        )
        with session_scope(self._factory) as session:
            session.add(row)
            session.flush()
            return row.id

    def progress(
        self, run_id: int, step: int, max_steps: int, loss: float | None, tokens_per_s: float | None
    ) -> None:
        """Record one logged step (its loss joins the curve).

        Raises:
            NotFoundError: no run has that id.
        """
        with session_scope(self._factory) as session:
            row = _row(session, run_id)
            row.step, row.max_steps, row.tokens_per_s = step, max_steps, tokens_per_s
            if loss is not None:
                row.losses = [*row.losses, [step, loss]]

    def finish(
        self,
        run_id: int,
        data_hash: str,
        eval_table: Mapping[str, Any],
        model_dir: str,
        tokens_per_s: float | None,
    ) -> None:
        """Store a finished run's results.

        Raises:
            NotFoundError: no run has that id.
        """
        with session_scope(self._factory) as session:
            row = _row(session, run_id)
            row.status = TrainRunStatus.FINISHED.value
            row.data_hash, row.eval_table, row.model_dir = data_hash, dict(eval_table), model_dir
            row.tokens_per_s = tokens_per_s

    def fail(self, run_id: int, message: str) -> None:
        """End a run without results, saying why.

        Raises:
            NotFoundError: no run has that id.
        """
        with session_scope(self._factory) as session:
            row = _row(session, run_id)
            row.status, row.message = TrainRunStatus.FAILED.value, message

    def list_runs(self, limit: int = 50) -> list[TrainRunRecord]:
        """The latest `limit` runs, newest first."""
        query = select(TrainRunRow).order_by(TrainRunRow.id.desc()).limit(limit)
        with session_scope(self._factory) as session:
            return [_record(row) for row in session.scalars(query)]

    def get(self, run_id: int) -> TrainRunRecord:
        """Return one run.

        Raises:
            NotFoundError: no run has that id.
        """
        with session_scope(self._factory) as session:
            return _record(_row(session, run_id))


def _row(session: Session, run_id: int) -> TrainRunRow:
    row = session.get(TrainRunRow, run_id)
    if row is None:
        raise NotFoundError(f"Training run {run_id} does not exist.")
    return row
