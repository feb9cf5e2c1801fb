"""`awp serve`: run the web app (embedded model, SQLite, bundled recordings) in the foreground."""

from __future__ import annotations

from typing import Annotated

import typer

from app.context import build_context


def serve(
    host: Annotated[str | None, typer.Option(help="Listen address (default AWP_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default AWP_PORT).")] = None,
) -> None:
    """Serve the playground at http://HOST:PORT until interrupted."""
    from app.web import launch

    with build_context(host=host, port=port) as context:
        settings = context.settings
        typer.echo(f"AgentWorld Playground on http://{settings.host}:{settings.port}")
        launch(context)


def register(cli: typer.Typer) -> None:
    """Add the `serve` command to the CLI."""
    cli.command("serve")(serve)
