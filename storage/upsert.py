"""Dialect-specific INSERT ... ON CONFLICT, the one atomic primitive the annotation service needs.

SQLite and PostgreSQL share the syntax, and a single statement is atomic on both, which is what
makes claims and annotator creation safe under concurrency without explicit locks.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from storage.models import AnnotatorRow, utcnow


def dialect_insert(session: Session, model: Any) -> Any:
    """An INSERT for `model` that supports `on_conflict_do_*` on the session's database."""
    if session.get_bind().dialect.name == "postgresql":
        return postgresql.insert(model)
    return sqlite.insert(model)


def ensure_annotator(session: Session, name: str) -> int:
    """Return the id of the annotator called `name`, creating it when new.

    Inserting first also takes SQLite's write lock at the start of the transaction, so the
    reads that follow cannot be invalidated by another writer (no SQLITE_BUSY mid-transaction).
    """
    statement = dialect_insert(session, AnnotatorRow).values(name=name, created_at=utcnow())
    session.execute(statement.on_conflict_do_nothing(index_elements=["name"]))
    annotator_id = session.scalar(select(AnnotatorRow.id).where(AnnotatorRow.name == name))
    if annotator_id is None:
        raise RuntimeError(f"annotator {name!r} vanished right after it was created")
    return annotator_id


def find_annotator(session: Session, name: str) -> int | None:
    """Return the id of the annotator called `name`, or None (without creating it)."""
    return session.scalar(select(AnnotatorRow.id).where(AnnotatorRow.name == name))
