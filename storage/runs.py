"""Runs in SQL, one store for every kind: started, advanced, ended, listed and read.

Benchmark, training and rollout runs share one lifecycle (`storage.run_lifecycle.recorded`
drives it); the typed record of each kind (`storage.run_kinds`) reads its own `spec` and
`results`. Records are detached from the database, so pages and commands hold them freely. A
run killed without a chance to write (SIGKILL, OOM, power loss) stays `running` until the next
process opens the store: `reap` then marks it `interrupted`, its process being gone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.errors import BadInputError, NotFoundError
from backend.spec import describe
from storage.db import SessionFactory, session_scope
from storage.models import RunKind, RunRow, RunStatus
from storage.processes import is_dead, this_process

DIED = "Interrupted: the process running it stopped (killed or crashed) before it finished."


@dataclass(frozen=True)
class RunRecord:
    """One stored run, detached from the database; each kind subclasses it.

    Attributes:
        spec: what was asked (kind-specific).
        points: progress logged on the way, each `{"done": n, ...metrics}`.
        results: what the run produced once finished (kind-specific), else empty.
    """

    kind: ClassVar[RunKind]
    label: ClassVar[str]

    id: int
    status: str
    message: str | None
    out_dir: str | None
    owner: str | None
    done: int
    total: int
    failures: int
    spec: Mapping[str, Any]
    points: list[Mapping[str, Any]]
    results: Mapping[str, Any]
    created_at: datetime
    updated_at: datetime

    @classmethod
    def interrupted_message(cls, out_dir: str | None, cause: str = "Interrupted") -> str:
        """What an interrupted run of this kind tells people (kinds that can resume say how).

        `cause` says what stopped it: `Interrupted` (Ctrl-C, a killed process) or `Cancelled`.
        """
        return f"{cause} before it finished."

    @property
    def worlds(self) -> list[Mapping[str, Any]]:
        """The world specs the run ran in (`backend.spec.WorldSpec.stored`), one per world model.

        Stored under `spec["world"]`; a run stored before specs were kept has none.
        """
        stored = self.spec.get("world")
        return [dict(world) for world in stored] if isinstance(stored, list) else []

    def world_words(self) -> list[str]:
        """Each world spec in words ("persistence · baseline:persistence, grounding off, ...")."""
        return [describe(world) for world in self.worlds]


R = TypeVar("R", bound=RunRecord)


def _record(row: RunRow, kind: type[R]) -> R:
    return kind(
        id=row.id,
        status=row.status,
        message=row.message,
        out_dir=row.out_dir,
        owner=row.owner,
        done=row.done,
        total=row.total,
        failures=row.failures,
        spec=dict(row.spec),
        points=[dict(point) for point in row.points],
        results=dict(row.results),
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


class RunStore:
    """Starts, advances, ends, lists and reads runs of every kind; every write commits at once.

    Args:
        factory: the session factory of a `storage.db.Database`.

    """

    def __init__(self, factory: SessionFactory) -> None:
        self._factory = factory

    def start(
        self,
        kind: type[RunRecord],
        spec: Mapping[str, Any],
        out_dir: str | None = None,
        owner: str | None = None,
        *,
        resume: bool = False,
    ) -> int:
        """Store a `running` run and return its id.

        Args:
            kind: the record class of the run's kind.
            spec: what was asked.
            out_dir: the folder holding its files, if it writes any.
            owner: who started it (None from the CLI).
            resume: continue the latest run of this kind stored for `out_dir` (its row is
                reopened) rather than listing the same folder twice; a new row when there is none.

        """
        with session_scope(self._factory) as session:
            row = self._latest_for(session, kind.kind, out_dir) if resume else None
            if row is None:
                row = RunRow(kind=kind.kind.value, out_dir=out_dir)
                session.add(row)
            row.spec, row.owner = dict(spec), owner
            row.status, row.message = RunStatus.RUNNING.value, None
            row.process = this_process()
            session.flush()
            return row.id

    def reap(self) -> int:
        """Mark `interrupted` every running run whose process on this host died; how many.

        Runs of live processes, and of other hosts sharing the database, are left running.
        """
        with session_scope(self._factory) as session:
            running = select(RunRow).where(RunRow.status == RunStatus.RUNNING.value)
            dead = [
                row
                for row in session.scalars(running)
                if row.process is not None and is_dead(row.process)
            ]
            for row in dead:
                row.status = RunStatus.INTERRUPTED.value
                row.message = DIED
            return len(dead)

    @staticmethod
    def _latest_for(session: Session, kind: RunKind, out_dir: str | None) -> RunRow | None:
        query = select(RunRow).where(RunRow.kind == kind.value, RunRow.out_dir == out_dir)
        return session.scalars(query.order_by(RunRow.id.desc()).limit(1)).first()

    def progress(
        self, run_id: int, done: int, total: int, metrics: Mapping[str, float] | None = None
    ) -> None:
        """Record how far a run is; `metrics` (e.g. a loss) join its logged points.

        Raises:
            NotFoundError: no run has that id.

        """
        with session_scope(self._factory) as session:
            row = _row(session, run_id)
            row.done, row.total = done, total
            if metrics:
                row.points = [*row.points, {"done": done, **metrics}]

    def finish(
        self,
        run_id: int,
        results: Mapping[str, Any],
        done: int | None = None,
        failures: int = 0,
    ) -> None:
        """Store a run's results and end it `finished`.

        Args:
            run_id: the run.
            results: what it produced.
            done: its final count of units done (None: the last progress stands).
            failures: units that failed without ending the run.

        Raises:
            NotFoundError: no run has that id.

        """
        with session_scope(self._factory) as session:
            row = _row(session, run_id)
            row.status, row.results, row.failures = (
                RunStatus.FINISHED.value,
                dict(results),
                failures,
            )
            if done is not None:
                # A run that counted no progress on the way (a benchmark) did all it did.
                row.done, row.total = done, max(row.total, done)

    def end(self, run_id: int, status: RunStatus, message: str) -> None:
        """End a run without results, saying why (`failed` or `interrupted`).

        Raises:
            NotFoundError: no run has that id.
            BadInputError: `status` is neither failed nor interrupted.

        """
        if status not in (RunStatus.FAILED, RunStatus.INTERRUPTED):
            raise BadInputError(f"A run ends failed or interrupted here, not {status.value!r}.")
        with session_scope(self._factory) as session:
            row = _row(session, run_id)
            row.status, row.message = status.value, message

    def list_runs(self, kind: type[R], limit: int = 50) -> list[R]:
        """The latest `limit` runs of a kind, newest first (ids grow with each start)."""
        query = (
            select(RunRow)
            .where(RunRow.kind == kind.kind.value)
            .order_by(RunRow.id.desc())
            .limit(limit)
        )
        with session_scope(self._factory) as session:
            return [_record(row, kind) for row in session.scalars(query)]

    def get(self, kind: type[R], run_id: int) -> R:
        """Return one run of a kind.

        Raises:
            NotFoundError: no run of that kind has that id.

        """
        with session_scope(self._factory) as session:
            row = session.get(RunRow, run_id)
            if row is None or row.kind != kind.kind.value:
                raise NotFoundError(f"{kind.label} {run_id} does not exist.")
            return _record(row, kind)


def _row(session: Session, run_id: int) -> RunRow:
    row = session.get(RunRow, run_id)
    if row is None:
        raise NotFoundError(f"Run {run_id} does not exist.")
    return row
