"""`awp model prepare`: convert the embedded model once so the first simulation starts fast."""

from __future__ import annotations

import time

import typer

from app.settings import Settings

model_cli = typer.Typer(help="Manage the embedded default model.", no_args_is_help=True)


@model_cli.command("prepare")
def prepare() -> None:
    """Convert the embedded SmolLM2 GGUF into a safetensors folder in the data directory."""
    from backend.engines.embedded import prepare_embedded_model

    settings = Settings()
    started = time.perf_counter()
    path = prepare_embedded_model(settings.data_dir)
    typer.echo(f"Embedded model ready at {path} ({time.perf_counter() - started:.1f}s).")


def register(cli: typer.Typer) -> None:
    """Add the `model` command group to the CLI."""
    cli.add_typer(model_cli, name="model")
