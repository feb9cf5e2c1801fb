"""Database engines and the one session scope; nothing here touches a database at import time.

SQLite (the default, a file in the data directory) is opened in WAL mode with foreign keys on and a
busy timeout, so the UI can read while a simulation writes and concurrent writers wait instead of
failing. With `synchronous=NORMAL` a committed step survives a killed process (not a power cut).
PostgreSQL URLs are driven by psycopg 3.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.orm import Session, sessionmaker

from backend.errors import AWPError, BadInputError

SQLITE_BUSY_TIMEOUT_MS = 30_000

SessionFactory = sessionmaker[Session]


def normalise_url(url: str) -> URL:
    """Parse a database URL, pinning PostgreSQL to the psycopg 3 driver.

    Raises:
        BadInputError: the URL is malformed or names a database other than SQLite or PostgreSQL.

    """
    try:
        parsed = make_url(url.replace("postgres://", "postgresql://", 1))
    except (ArgumentError, ValueError) as exc:
        raise BadInputError(f"Malformed database URL {url!r}: {exc}") from None
    backend = parsed.get_backend_name()
    if backend == "postgresql":
        return parsed.set(drivername="postgresql+psycopg")
    if backend == "sqlite":
        return parsed
    raise BadInputError(
        f"Unsupported database {backend!r} in AWP_DATABASE_URL; use sqlite:///PATH or "
        "postgresql://USER@HOST/DB."
    )


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.close()


def create_db_engine(url: str) -> Engine:
    """Create an engine for `url` with the connection settings this project relies on.

    Raises:
        BadInputError: unsupported or malformed URL.
        AWPError: a PostgreSQL URL without psycopg installed.

    """
    parsed = normalise_url(url)
    if parsed.get_backend_name() == "postgresql":
        if importlib.util.find_spec("psycopg") is None:
            raise AWPError(
                "PostgreSQL needs psycopg 3: pip install 'agentworld-playground[postgres]'."
            )
        return create_engine(parsed, pool_pre_ping=True)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(parsed, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


@contextmanager
def session_scope(factory: SessionFactory) -> Iterator[Session]:
    """One unit of work: commit when the block ends, roll back when it raises, always close."""
    session = factory()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


class Database:
    """An engine and its session factory, built from one URL.

    Repositories take `session_factory` rather than this object, so tests and services can share
    one factory. Build it with `storage.migrate.open_database` to get the schema checked first.

    Args:
        url: a SQLAlchemy URL (`sqlite:///...` or `postgresql://...`).

    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = create_db_engine(url)
        # Objects stay readable after commit: repositories return them once their scope closed.
        self.session_factory: SessionFactory = sessionmaker(self.engine, expire_on_commit=False)

    @property
    def dialect(self) -> str:
        """`sqlite` or `postgresql`."""
        return self.engine.dialect.name

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()
