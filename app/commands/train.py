"""`awp train sft|dpo|kto|grpo|cpt`: fine-tune a world model and measure it on held-out data."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.commands.options import output_folder
from app.context import build_context

DATA_HELP = (
    "`recorded` (stored and bundled recordings), `corrections` (annotations in SQL), or an "
    "export file (.jsonl, .parquet, datasets folder)."
)


def train(
    method: Annotated[str, typer.Argument(help="sft, dpo, kto, grpo or cpt.")],
    data: Annotated[str, typer.Option(help=DATA_HELP)],
    out: Annotated[Path, typer.Option(help="Run folder: model, checkpoints, results, card.")],
    base: Annotated[
        str | None, typer.Option(help="Base model folder (default: the embedded SmolLM2).")
    ] = None,
    lora: Annotated[
        bool, typer.Option("--lora/--full", help="Train a LoRA adapter, or every weight.")
    ] = True,
    max_steps: Annotated[int | None, typer.Option(help="Stop after N steps.", min=1)] = None,
    max_minutes: Annotated[
        float | None, typer.Option(help="Stop after M minutes of training.", min=0.01)
    ] = None,
    epochs: Annotated[float, typer.Option(help="Passes over the data.", min=0.01)] = 3.0,
    eval_split: Annotated[
        float, typer.Option(help="Share of trajectories held out (0: no evaluation).")
    ] = 0.3,
    eval_limit: Annotated[
        int | None, typer.Option(help="Benchmark only the first N held-out turns.", min=1)
    ] = None,
    eval_max_new_tokens: Annotated[
        int, typer.Option(help="Completion budget of the held-out benchmark.", min=1)
    ] = 256,
    max_length: Annotated[
        int, typer.Option(help="Tokens per example; history is cut from the oldest turn.")
    ] = 1024,
    learning_rate: Annotated[
        float | None, typer.Option(help="Default: 3e-4 LoRA, 2e-5 full.")
    ] = None,
    grad_accum: Annotated[
        int, typer.Option(help="Examples accumulated per optimizer step.", min=1)
    ] = 4,
    seed: Annotated[int, typer.Option(help="Fixes the split and the training order.")] = 0,
    push: Annotated[
        str | None, typer.Option(help="Then upload the model and its card to this Hub repo.")
    ] = None,
    token: Annotated[
        str | None, typer.Option(help="Hub token (default: HF_TOKEN or `hf auth login`).")
    ] = None,
    results_dataset: Annotated[
        str | None,
        typer.Option(
            help="With --push: the Hub benchmark dataset the held-out data comes from; the "
            "held-out results are written for it into model/.eval_results/."
        ),
    ] = None,
    resume: Annotated[
        bool, typer.Option(help="Continue the run in --out from its last checkpoint.")
    ] = False,
    save_steps: Annotated[
        int, typer.Option(help="Write a checkpoint every N optimizer steps.", min=1)
    ] = 25,
) -> None:
    """Fine-tune with TRL, benchmark the held-out split before and after, write a model card."""
    from app.training import run_training
    from backend.errors import BadInputError
    from backend.training.config import TrainConfig
    from backend.training.evaluate import format_eval_table
    from backend.training.service import push_model

    if push and not results_dataset:
        raise BadInputError(
            "--push writes the Hub's evaluation results beside the model card: name the Hub "
            "benchmark dataset the held-out data comes from with --results-dataset."
        )

    output_folder(out)
    config = TrainConfig(
        method=method,
        data=data,
        base=base,
        out=out,
        lora=lora,
        max_steps=max_steps,
        max_minutes=max_minutes,
        epochs=epochs,
        eval_split=eval_split,
        eval_limit=eval_limit,
        eval_max_new_tokens=eval_max_new_tokens,
        max_length=max_length,
        learning_rate=learning_rate,
        grad_accum=grad_accum,
        seed=seed,
        resume=resume,
        save_steps=save_steps,
    )
    with build_context() as context:
        results = run_training(context, config)
    sizes = results.sizes
    typer.echo(
        f"Trained {results.steps} steps on {sizes.train_examples} examples "
        f"({sizes.cut} cut to {config.max_length} tokens, {sizes.dropped} too long, left out)."
    )
    if results.eval is not None:
        typer.echo(format_eval_table(results.eval))
    typer.echo(f"Model: {results.model_dir}  (serve it: --engine transformers --model DIR)")
    if push and results_dataset:
        from backend.integrations.hub_results import train_entries, write_results

        if results.eval is not None:
            entries = train_entries(results.eval, results_dataset, config.data)
            name = results_dataset.rsplit("/", 1)[-1].lower()
            typer.echo(f"Wrote {write_results(Path(results.model_dir), name, entries)}")
        typer.echo(f"Pushed to {push_model(results, push, token)}")


def register(cli: typer.Typer) -> None:
    """Add `train` to the CLI."""
    cli.command()(train)
