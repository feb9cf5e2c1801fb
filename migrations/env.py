"""Alembic environment: batch mode for SQLite, our engine settings, one URL source.

The URL is, in order: a connection handed in by storage/migrate.py, `-x url=...` on the alembic
command line, `sqlalchemy.url` in the config, then the application's settings.
"""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlalchemy.engine import Connection

from storage.db import create_db_engine
from storage.models import Base
from storage.models.base import UTCDateTime

config = context.config


def _url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    if url:
        return url
    from app.settings import Settings

    return Settings().resolved_database_url()


def _render_item(type_: str, obj: Any, _autogen_context: Any) -> str | bool:
    # Migrations must not import the application: render our UTC type as the plain SQL type.
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _configure(**kwargs: Any) -> None:
    context.configure(
        target_metadata=Base.metadata,
        render_as_batch=True,
        compare_type=True,
        render_item=_render_item,
        **kwargs,
    )


def _run(connection: Connection) -> None:
    _configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()


def _run_fresh(connection: Connection) -> None:
    # The alembic command line: SQLite batch mode needs foreign-key actions off (see there).
    from storage.migrate import migration_transaction

    with migration_transaction(connection):
        _run(connection)


def run_migrations_offline() -> None:
    """Emit SQL for the configured URL without connecting (`alembic upgrade --sql`)."""
    _configure(url=_url(), literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run migrations over a handed-in connection or a fresh engine."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = create_db_engine(_url())
    try:
        with engine.connect() as fresh:
            _run_fresh(fresh)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
