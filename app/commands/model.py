"""`awp model prepare`: convert the embedded model once so the first simulation starts fast."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from app.context import AppContext, build_context

model_cli = typer.Typer(help="Manage the embedded default model.", no_args_is_help=True)


TUNED_RUN = "smollm2-135m-instruct-tuned"
TUNED_MINUTES = 15.0
"""The recipe the manual describes: a LoRA SFT on the recordings, time-boxed on 2 cores."""


@model_cli.command("prepare")
def prepare(
    tuned: Annotated[
        bool,
        typer.Option(
            help=f"Also fine-tune it on the recordings (LoRA SFT, {TUNED_MINUTES:.0f} minutes)."
        ),
    ] = False,
    max_steps: Annotated[
        int | None,
        typer.Option(
            help="Cap the tuning at N optimizer steps (a quick try of the recipe).", min=1
        ),
    ] = None,
) -> None:
    """Convert the embedded SmolLM2 GGUF into a safetensors folder in the data directory."""
    from backend.engines.embedded import prepare_embedded_model

    with build_context() as context:
        started = time.perf_counter()
        path = prepare_embedded_model(context.settings.data_dir)
        typer.echo(f"Embedded model ready at {path} ({time.perf_counter() - started:.1f}s).")
        if not tuned:
            return
        folder = prepare_tuned(context, max_steps)
        typer.echo(
            f"Tuned model ready at {folder}; use it with AWP_ENGINE=transformers AWP_MODEL={folder}"
        )


def prepare_tuned(context: AppContext, max_steps: int | None = None) -> str:
    """Train the tuned embedded model once (on every recording: no held-out split).

    A finished tuned model is reused, so a second call returns at once; an interrupted one
    resumes from its last checkpoint.
    """
    from app.training import run_training
    from backend.training.config import TrainConfig
    from backend.training.results import MODEL_DIR, RESULTS_FILE

    out = context.settings.data_dir / "models" / TUNED_RUN
    if (out / RESULTS_FILE).exists():
        return str(out / MODEL_DIR)
    config = TrainConfig(
        method="sft",
        data="recorded",
        out=out,
        max_minutes=TUNED_MINUTES,
        max_steps=max_steps,
        eval_split=0.0,
        resume=out.exists(),
    )
    return run_training(context, config).model_dir


def register(cli: typer.Typer) -> None:
    """Add the `model` command group to the CLI."""
    cli.add_typer(model_cli, name="model")
