"""`awp db upgrade` and `awp db current`: the database schema, migrated by Alembic only."""

from __future__ import annotations

from typing import Annotated

import typer
from sqlalchemy.engine import make_url

from app.context import build_context

db_app = typer.Typer(help="Database schema: upgrade it, show its revision.", no_args_is_help=True)


def _shown(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


@db_app.command("upgrade")
def upgrade(
    revision: Annotated[str, typer.Argument(help="Target revision.")] = "head",
) -> None:
    """Migrate the database (AWP_DATABASE_URL; default SQLite in the data dir) to `revision`."""
    from alembic.util.exc import CommandError

    from backend.errors import BadInputError
    from storage.migrate import current_revision
    from storage.migrate import upgrade as run_upgrade

    with build_context() as context:
        url = context.settings.resolved_database_url()
    try:
        run_upgrade(url, revision)
    except CommandError as exc:
        raise BadInputError(f"No migration to {revision!r}: {exc}") from None
    typer.echo(f"{_shown(url)} is at revision {current_revision(url)}.")


@db_app.command("current")
def current() -> None:
    """Show the database's schema revision and whether it matches this code."""
    from storage.migrate import current_revision, head_revision

    with build_context() as context:
        url = context.settings.resolved_database_url()
    revision, head = current_revision(url), head_revision()
    if revision == head:
        state = "up to date"
    elif revision is None:
        state = "empty: it is created at the next start, or run `awp db upgrade`"
    else:
        state = f"out of date (code needs {head}): run `awp db upgrade`"
    typer.echo(f"{_shown(url)}: revision {revision or '-'}, {state}.")


def register(cli: typer.Typer) -> None:
    """Mount `awp db`."""
    cli.add_typer(db_app, name="db")
