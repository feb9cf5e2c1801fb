"""Benchmark runs in SQL: a row at start, updated at the end, so past runs are listed by query.

The CLI and the Benchmark page wrap `backend.benchmark.service.run_bench` in `record_bench`;
backend code never sees the database. A run killed without a chance to write (SIGKILL, power
loss) stays `running`: its folder still holds everything needed to `awp bench --resume` it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.errors import AWPError, BadInputError, NotFoundError
from storage.db import SessionFactory, session_scope
from storage.models import BenchRunRow, BenchRunStatus

if TYPE_CHECKING:
    from backend.benchmark.results import BenchResults


@dataclass(frozen=True)
class BenchRunRecord:
    """One stored benchmark run, detached from the database.

    `summary` is the run's `results.json` content once finished, else empty; `item_count` and
    `failure_count` count predictions (one per engine and item), as `results.json` does.
    """

    id: int
    dataset: str
    engines: list[str]
    judge: str | None
    out_dir: str
    status: str
    message: str | None
    item_count: int
    failure_count: int
    summary: Mapping[str, Any]
    owner: str | None
    created_at: datetime
    updated_at: datetime

    def overall_macro(self) -> dict[str, float | None]:
        """Each engine's macro Overall of its headline metric (empty until finished)."""
        engines = self.summary.get("engines", {})
        return {name: stats["headline_overall"]["macro"] for name, stats in engines.items()}


def _record(row: BenchRunRow) -> BenchRunRecord:
    return BenchRunRecord(
        id=row.id,
        dataset=row.dataset,
        engines=list(row.engines),
        judge=row.judge,
        out_dir=row.out_dir,
        status=row.status,
        message=row.message,
        item_count=row.item_count,
        failure_count=row.failure_count,
        summary=dict(row.summary),
        owner=row.owner,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


class BenchRunStore:
    """Starts, ends, lists and reads benchmark runs; every write commits at once.

    Args:
        factory: the session factory of a `storage.db.Database`.

    """

    def __init__(self, factory: SessionFactory) -> None:
        self._factory = factory

    def start(
        self,
        dataset: str,
        engines: list[str],
        judge: str | None,
        out_dir: str,
        owner: str | None = None,
        *,
        resume: bool = False,
    ) -> int:
        """Store a `running` run and return its id.

        Args:
            dataset: `bundled` or the dataset path the run reads.
            engines: engine names, in the order the results list them.
            judge: the judge engine, or None when predictions are not judged.
            out_dir: the folder holding its items, results and chart.
            owner: who started it (None from the CLI).
            resume: continue the latest run stored for `out_dir` (its row is reopened) rather
                than listing the same folder twice; a new row when there is none.

        """
        values = {"dataset": dataset, "engines": list(engines), "judge": judge, "owner": owner}
        with session_scope(self._factory) as session:
            row = self._latest_for(session, out_dir) if resume else None
            if row is None:
                row = BenchRunRow(out_dir=out_dir, **values)
                session.add(row)
            else:
                for key, value in values.items():
                    setattr(row, key, value)
                row.status, row.message = BenchRunStatus.RUNNING.value, None
            session.flush()
            return row.id

    @staticmethod
    def _latest_for(session: Session, out_dir: str) -> BenchRunRow | None:
        query = select(BenchRunRow).where(BenchRunRow.out_dir == out_dir)
        return session.scalars(query.order_by(BenchRunRow.id.desc()).limit(1)).first()

    def finish(
        self,
        run_id: int,
        summary: Mapping[str, Any],
        item_count: int,
        failure_count: int,
        status: BenchRunStatus | str = BenchRunStatus.FINISHED,
    ) -> None:
        """Store a run's results and end it.

        Raises:
            NotFoundError: no run has that id.
            BadInputError: `status` is not a run status.

        """
        self._update(
            run_id,
            status=_status(status).value,
            summary=dict(summary),
            item_count=item_count,
            failure_count=failure_count,
        )

    def fail(self, run_id: int, status: BenchRunStatus | str, message: str) -> None:
        """End a run without results, saying why (`failed` or `interrupted`).

        Raises:
            NotFoundError: no run has that id.
            BadInputError: `status` is neither failed nor interrupted.

        """
        kind = _status(status)
        if kind not in (BenchRunStatus.FAILED, BenchRunStatus.INTERRUPTED):
            raise BadInputError(f"A run fails as failed or interrupted, not {kind.value!r}.")
        self._update(run_id, status=kind.value, message=message)

    def list_runs(self, limit: int = 50) -> list[BenchRunRecord]:
        """The latest `limit` runs, newest first (ids grow with each start)."""
        query = select(BenchRunRow).order_by(BenchRunRow.id.desc()).limit(limit)
        with session_scope(self._factory) as session:
            return [_record(row) for row in session.scalars(query)]

    def get(self, run_id: int) -> BenchRunRecord:
        """Return one run.

        Raises:
            NotFoundError: no run has that id.

        """
        with session_scope(self._factory) as session:
            return _record(_row(session, run_id))

    def _update(self, run_id: int, **values: Any) -> None:
        with session_scope(self._factory) as session:
            row = _row(session, run_id)
            for key, value in values.items():
                setattr(row, key, value)


def _row(session: Session, run_id: int) -> BenchRunRow:
    row = session.get(BenchRunRow, run_id)
    if row is None:
        raise NotFoundError(f"Benchmark run {run_id} does not exist.")
    return row


def _status(value: BenchRunStatus | str) -> BenchRunStatus:
    try:
        return BenchRunStatus(value)
    except ValueError:
        valid = ", ".join(status.value for status in BenchRunStatus)
        raise BadInputError(f"Unknown run status {value!r}; valid: {valid}.") from None


def record_bench(
    store: BenchRunStore,
    run: Callable[[int], BenchResults],
    *,
    dataset: str,
    engines: list[str],
    judge: str | None,
    out_dir: str,
    owner: str | None = None,
    resume: bool = False,
) -> BenchResults:
    """Call `run(run_id)` between a stored start and end, so every run is listed with its outcome.

    `run` receives the stored run's id, so the predictions it stores can name their run.

    Ctrl-C marks the run `interrupted` (its folder can be resumed), any other error `failed`;
    both are re-raised for the caller's edge to report. A resumed run reopens its stored row.

    Returns:
        What `run` returned.

    """
    run_id = store.start(dataset, engines, judge, out_dir, owner, resume=resume)
    try:
        results = run(run_id)
    except KeyboardInterrupt:
        hint = f"Interrupted; `awp bench --resume --out {out_dir}` continues it."
        store.fail(run_id, BenchRunStatus.INTERRUPTED, hint)
        raise
    except AWPError as exc:
        store.fail(run_id, BenchRunStatus.FAILED, str(exc))
        raise
    except Exception as exc:
        # Only domain errors carry text written for users; the listing must not show internals.
        store.fail(run_id, BenchRunStatus.FAILED, f"Unexpected {type(exc).__name__}; see the log.")
        raise
    stats = results.engines.values()
    store.finish(
        run_id,
        results.model_dump(mode="json"),
        item_count=sum(engine.items for engine in stats),
        failure_count=sum(engine.failures for engine in stats),
    )
    return results
