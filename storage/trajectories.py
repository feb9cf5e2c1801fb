"""Stored trajectories: the import commands write them, the UI and benchmarks read them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session, selectinload
from sqlalchemy.sql import Select

from backend.errors import NotFoundError
from backend.types import Trajectory
from storage.convert import to_trajectory, trajectory_fields, turn_rows
from storage.db import SessionFactory, session_scope
from storage.models import TrajectoryRow, TurnRow, utcnow

UPSERT_BATCH = 200
ITER_BATCH = 100


@dataclass(frozen=True)
class TrajectorySummary:
    """One line of a trajectory listing."""

    id: str
    domain: str
    source: str
    task: str
    turns: int


def _filtered(query: Select, domain: str | None, source: str | None) -> Select:
    if domain is not None:
        query = query.where(TrajectoryRow.domain == domain)
    if source is not None:
        query = query.where(TrajectoryRow.source == source)
    return query


def _upsert(session: Session, trajectory: Trajectory) -> None:
    row = session.get(TrajectoryRow, trajectory.id)
    if row is None:
        row = TrajectoryRow(id=trajectory.id, **trajectory_fields(trajectory))
        session.add(row)
    else:
        for key, value in trajectory_fields(trajectory).items():
            setattr(row, key, value)
        # Turns are replaced wholesale: a re-import may reorder or drop turns. The row's stamp
        # moves with them, so a reader that caches turns (grounding's index) sees the change.
        session.execute(delete(TurnRow).where(TurnRow.trajectory_id == trajectory.id))
        session.expire(row, ["turns"])
        row.updated_at = utcnow()
    for turn in turn_rows(trajectory):
        turn.trajectory_id = trajectory.id
        session.add(turn)


class TrajectoryStore:
    """Insert-or-replace, look up and list trajectories.

    Args:
        factory: the session factory of a `storage.db.Database`.

    """

    def __init__(self, factory: SessionFactory) -> None:
        self._factory = factory

    def upsert(self, trajectory: Trajectory) -> None:
        """Store a trajectory, replacing one with the same id (turns included)."""
        with session_scope(self._factory) as session:
            _upsert(session, trajectory)

    def upsert_many(
        self, trajectories: Iterable[Trajectory], batch_size: int = UPSERT_BATCH
    ) -> int:
        """Store many trajectories, committing every `batch_size`; returns how many were stored.

        Memory stays flat for any number of trajectories; an error leaves earlier batches stored.
        """
        count = 0
        session = self._factory()
        try:
            for trajectory in trajectories:
                _upsert(session, trajectory)
                count += 1
                if count % batch_size == 0:
                    session.commit()
                    session.expunge_all()
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()
        return count

    def get(self, trajectory_id: str) -> Trajectory:
        """Return a stored trajectory.

        Raises:
            NotFoundError: no trajectory has that id.

        """
        with session_scope(self._factory) as session:
            row = session.get(
                TrajectoryRow, trajectory_id, options=[selectinload(TrajectoryRow.turns)]
            )
            if row is None:
                raise NotFoundError(f"Trajectory {trajectory_id!r} does not exist.")
            return to_trajectory(row)

    def exists(self, trajectory_id: str) -> bool:
        """Whether a trajectory with that id is stored."""
        with session_scope(self._factory) as session:
            return session.get(TrajectoryRow, trajectory_id) is not None

    def list_trajectories(
        self,
        domain: str | None = None,
        source: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[TrajectorySummary]:
        """Trajectories ordered by id, with their number of turns."""
        turns = (
            select(TurnRow.trajectory_id, func.count(TurnRow.id).label("n"))
            .group_by(TurnRow.trajectory_id)
            .subquery()
        )
        query = select(TrajectoryRow, func.coalesce(turns.c.n, 0)).outerjoin(
            turns, turns.c.trajectory_id == TrajectoryRow.id
        )
        query = _filtered(query, domain, source).order_by(TrajectoryRow.id)
        with session_scope(self._factory) as session:
            return [
                TrajectorySummary(row.id, row.domain, row.source, row.task, n)
                for row, n in session.execute(query.limit(limit).offset(offset))
            ]

    def count(self, domain: str | None = None, source: str | None = None) -> int:
        """How many trajectories match."""
        query = _filtered(select(func.count(TrajectoryRow.id)), domain, source)
        with session_scope(self._factory) as session:
            return session.scalar(query) or 0

    def counts_by_domain(self) -> dict[str, int]:
        """Number of stored trajectories per domain."""
        query = select(TrajectoryRow.domain, func.count(TrajectoryRow.id)).group_by(
            TrajectoryRow.domain
        )
        with session_scope(self._factory) as session:
            return {domain: n for domain, n in session.execute(query)}

    def iter_trajectories(
        self, domain: str | None = None, source: str | None = None
    ) -> Iterator[Trajectory]:
        """Every matching trajectory in id order, read in batches (memory stays flat)."""
        after = ""
        while True:
            query = (
                _filtered(select(TrajectoryRow), domain, source)
                .where(TrajectoryRow.id > after)
                .options(selectinload(TrajectoryRow.turns))
                .order_by(TrajectoryRow.id)
            )
            with session_scope(self._factory) as session:
                batch = [to_trajectory(row) for row in session.scalars(query.limit(ITER_BATCH))]
            if not batch:
                return
            yield from batch
            after = batch[-1].id

    def delete(self, trajectory_id: str) -> None:
        """Delete a trajectory and its turns (sessions started from it keep their own steps).

        Raises:
            NotFoundError: no trajectory has that id.

        """
        with session_scope(self._factory) as session:
            result = session.execute(delete(TrajectoryRow).where(TrajectoryRow.id == trajectory_id))
            if not result.rowcount:  # type: ignore[attr-defined]
                raise NotFoundError(f"Trajectory {trajectory_id!r} does not exist.")
