"""Schema state: upgrade a database, read its revision and refuse one older than the code.

The migrations ship inside the package (`migrations/`), and the Alembic configuration is built
here in code, so an installed playground migrates without `alembic.ini`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.resources import files

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, inspect

from backend.errors import SchemaOutOfDateError
from storage.db import Database, create_db_engine
from storage.models import Base

UPGRADE_HINT = "run `awp db upgrade`"


def alembic_config() -> Config:
    """An Alembic configuration pointing at the migrations shipped with this code."""
    config = Config()
    config.set_main_option("script_location", str(files("migrations")))
    return config


def head_revision() -> str:
    """Return the newest revision the code knows (exactly one head is allowed).

    Raises:
        alembic.util.CommandError: the migrations have more than one head.

    """
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise RuntimeError("no migrations found in the migrations package")
    return head


def known_revisions() -> set[str]:
    """Return every revision id the shipped migrations define."""
    scripts = ScriptDirectory.from_config(alembic_config()).walk_revisions()
    return {script.revision for script in scripts}


@contextmanager
def migration_transaction(connection: Connection) -> Iterator[None]:
    """One transaction for migrations, with SQLite's foreign-key actions off meanwhile.

    Batch mode changes a SQLite table by copying it, dropping the old one and renaming the copy;
    with foreign keys on, that DROP deletes every row of every table that references it with
    ON DELETE CASCADE (steps with their session, the history with its annotation). SQLite
    ignores the pragma inside a transaction, so it is switched off before the transaction and
    back on after it; the references are checked before the transaction commits.

    Raises:
        RuntimeError: the migrated data breaks a foreign key (nothing is committed).

    """
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        connection.commit()
    try:
        with connection.begin():
            yield
            if sqlite and connection.exec_driver_sql("PRAGMA foreign_key_check").first():
                raise RuntimeError("the migration left rows that break a foreign key")
    finally:
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            connection.commit()


def _run(engine: Engine, action: Callable[[Config], None]) -> None:
    config = alembic_config()
    with engine.connect() as connection, migration_transaction(connection):
        config.attributes["connection"] = connection
        action(config)


def _with_engine(url: str, action: Callable[[Engine], None]) -> None:
    engine = create_db_engine(url)
    try:
        action(engine)
    finally:
        engine.dispose()


def upgrade(url: str, revision: str = "head") -> None:
    """Migrate the database at `url` up to `revision` (the newest by default)."""
    _with_engine(url, lambda engine: upgrade_engine(engine, revision))


def upgrade_engine(engine: Engine, revision: str = "head") -> None:
    """Migrate the database behind an existing engine up to `revision`."""
    _run(engine, lambda config: command.upgrade(config, revision))


def downgrade(url: str, revision: str) -> None:
    """Migrate the database at `url` down to `revision` (`base` empties it)."""
    _with_engine(
        url, lambda engine: _run(engine, lambda config: command.downgrade(config, revision))
    )


def engine_revision(engine: Engine) -> str | None:
    """Return the revision the database behind `engine` is at, or None when never migrated."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def current_revision(url: str) -> str | None:
    """Return the revision the database at `url` is at, or None when it was never migrated."""
    engine = create_db_engine(url)
    try:
        return engine_revision(engine)
    finally:
        engine.dispose()


def ensure_current(engine: Engine) -> None:
    """Upgrade an empty database; refuse one whose schema differs from the code's.

    Raises:
        SchemaOutOfDateError: the database is behind the code (or ahead of it, or unmanaged).

    """
    current = engine_revision(engine)
    head = head_revision()
    if current == head:
        return
    if current is None:
        ours = set(Base.metadata.tables) & set(inspect(engine).get_table_names())
        if ours:
            raise SchemaOutOfDateError(
                f"The database has playground tables ({', '.join(sorted(ours))}) but no "
                "migration record; it was not created by `awp db upgrade`. Use a fresh database."
            )
        upgrade_engine(engine)
        return
    if current not in known_revisions():
        raise SchemaOutOfDateError(
            f"The database is at revision {current}, which this version of the playground does "
            "not know: it was migrated by a newer version. Upgrade the playground."
        )
    raise SchemaOutOfDateError(
        f"The database schema is out of date (revision {current}, the code needs {head}): "
        f"{UPGRADE_HINT}."
    )


def check_current(url: str) -> None:
    """Upgrade the database at `url` when empty; refuse it when out of date.

    Raises:
        SchemaOutOfDateError: the schema differs from the code's migrations.

    """
    _with_engine(url, ensure_current)


def open_database(url: str) -> Database:
    """Open the database at `url` for the application, upgrading it when empty.

    Raises:
        SchemaOutOfDateError: the schema differs from the code's migrations.

    """
    database = Database(url)
    try:
        ensure_current(database.engine)
    except BaseException:
        database.dispose()
        raise
    return database
