"""`awp export`: stored predictions and annotations as SFT/DPO/KTO/reward/AgentWorldBench data."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from app.commands.options import DomainFilter
from app.context import build_context
from backend.errors import BadInputError


def parse_since(value: str | None) -> datetime | None:
    """An ISO date or date-time; naive values are UTC.

    Raises:
        BadInputError: not an ISO date.

    """
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise BadInputError(
            f"--since must be an ISO date like 2026-01-31; got {value!r}."
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def export(
    export_format: Annotated[
        str,
        typer.Option(
            "--format", help="sft, dpo, kto, cpt, reward, agentworldbench, atif or inspect."
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            help="Output: .jsonl, .parquet, or a folder (datasets save_to_disk); .eval for inspect."
        ),
    ],
    domain: DomainFilter = None,
    since: Annotated[
        str | None, typer.Option(help="Only data made or annotated since this ISO date.")
    ] = None,
    min_rating: Annotated[
        float | None,
        typer.Option(help="Only annotations whose mean rating (1-5) is at least this."),
    ] = None,
    push: Annotated[
        str | None, typer.Option(help="Also upload to this Hub dataset repo (needs a token).")
    ] = None,
    token: Annotated[
        str | None, typer.Option(help="Hub token (default: HF_TOKEN or `hf auth login`).")
    ] = None,
    refuse_unparsed: Annotated[
        bool,
        typer.Option(
            "--refuse-unparsed",
            help="Refuse the export when a row's real observation does not parse as its "
            "structured domain's (mcp, search, web, os, android); by default such rows are "
            "skipped and counted.",
        ),
    ] = False,
) -> None:
    """Export stored data for RL and fine-tuning, streaming (memory flat in the row count).

    A row whose real observation (the annotator's truth, else the recorded one) does not parse
    as its structured domain's observation is never exported: it is skipped and counted, or
    with `--refuse-unparsed` the export is refused.
    """
    from backend.export.builders import FORMATS
    from backend.export.records import ExportContext
    from backend.export.service import export as run_export
    from storage.export_source import ExportQuery, iter_export_records

    if min_rating is not None and not 1 <= min_rating <= 5:
        raise BadInputError(f"--min-rating must be between 1 and 5; got {min_rating}.")
    chosen = FORMATS.get(export_format)
    query = ExportQuery(
        domain=domain,
        since=parse_since(since),
        min_rating=min_rating,
        annotated_only=chosen.needs_annotation,
    )
    filters = {"domain": domain, "since": since, "min_rating": min_rating}
    with build_context() as context:
        ctx = ExportContext(system_prompt=context.prompts.system_prompt)
        records = iter_export_records(context.database.session_factory, query, context.trust)
        summary = run_export(chosen.name, records, out, ctx, filters, push, token, refuse_unparsed)
    typer.echo(f"Wrote {summary.rows} {summary.format} rows to {summary.path} ({summary.kind}).")
    if summary.unparsed.count:
        typer.echo(summary.unparsed.says())
    if summary.pushed_to:
        typer.echo(f"Pushed to {summary.pushed_to}")


def register(cli: typer.Typer) -> None:
    """Mount `awp export`."""
    cli.command("export")(export)
