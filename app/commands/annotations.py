"""`awp annotations import|list|progress`: corrections made elsewhere, and what is stored."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from app.commands.options import DomainFilter
from app.context import build_context
from backend.errors import BadInputError

annotations_app = typer.Typer(
    help="Annotations: import corrections, list them, show progress.", no_args_is_help=True
)


@annotations_app.command("import")
def import_file(
    file: Annotated[Path, typer.Argument(help="JSONL file, one annotation per line.")],
    source: Annotated[str, typer.Option(help="Recorded as the annotations' source.")] = "import",
    role: Annotated[
        str,
        typer.Option(
            help="The role of the file's annotators (annotator, reviewer or admin), stored with "
            "each annotation: the trust rule reads it (AWP_TRUST_ROLES)."
        ),
    ] = "annotator",
) -> None:
    """Import annotations (prediction_id, annotator, verdict, corrected_observation, ratings, ...).

    `verdict` is accept, reject or cannot_tell, by the same rules as the Annotate page. Every
    line is validated first; one bad line refuses the whole file, listing the bad lines. The
    corrections answer as reality only once trusted: declare `--role reviewer` for a file of
    reviewed corrections, else they need agreeing annotators.
    """
    from storage.annotations import parse_import_file

    rows = parse_import_file(file)
    with build_context() as context:
        try:
            result = context.annotations.import_rows(rows, source=source, role=role)
        except BadInputError as exc:
            raise BadInputError(f"{file}: {exc}") from None
    typer.echo(
        f"Imported {len(rows)} rows from {file}: {result.created} new annotations, "
        f"{result.updated} updated (earlier versions kept in the history)."
    )


@annotations_app.command("list")
def list_annotations(
    domain: DomainFilter = None,
    annotator: Annotated[str | None, typer.Option(help="Only this annotator.")] = None,
    prediction: Annotated[int | None, typer.Option(help="Only this prediction id.")] = None,
    limit: Annotated[int, typer.Option(help="At most this many, newest first.")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
) -> None:
    """List stored annotations, most recently edited first."""
    with build_context() as context:
        found = context.annotations.list_annotations(prediction, annotator, domain, limit)
    for record in found:
        if as_json:
            typer.echo(json.dumps(asdict(record), default=str, ensure_ascii=False))
            continue
        ratings = "".join(str(v) if v is not None else "-" for v in record.ratings.values())
        verdict = record.verdict.label
        text = record.corrected_observation.replace("\n", " ")[:50]
        tags = ",".join(record.tags) or "-"
        typer.echo(
            f"#{record.annotation_id} prediction {record.prediction_id} by {record.annotator} "
            f"v{record.version} {verdict} ratings {ratings} tags {tags}: {text}"
        )
    if not found and not as_json:
        typer.echo("No annotations match.")


@annotations_app.command("progress")
def progress(
    annotator: Annotated[str | None, typer.Option(help="Only this annotator.")] = None,
) -> None:
    """Show annotation progress per domain and annotator, and inter-annotator agreement."""
    from storage.annotations import agreement, annotator_progress, domain_progress

    with build_context() as context:
        factory = context.database.session_factory
        domains = domain_progress(factory)
        people = annotator_progress(factory, annotator)
        overall, by_domain = agreement(factory, annotator)
    for d in domains:
        typer.echo(
            f"{d.domain}: {d.annotated}/{d.predictions} predictions annotated, "
            f"{d.annotated_twice} by two or more"
        )
    for p in people:
        typer.echo(
            f"  {p.annotator} [{p.domain}]: {p.annotated} "
            f"({p.accepted} accepted, {p.rejected} rejected, {p.cannot_tell} cannot tell)"
        )
    for name, result in [("overall", overall), *by_domain.items()]:
        if not result.pairs:
            continue
        dims = ", ".join(f"{dim} {a.exact:.0%}" for dim, a in result.dimensions.items())
        verdict = "-" if result.verdict is None else f"{result.verdict:.0%}"
        typer.echo(
            f"agreement {name}: {result.pairs} pairs, same verdict {verdict}, "
            f"exact ratings: {dims or '-'}"
        )


@annotations_app.command("agreement")
def agreement_report(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    worst: Annotated[int, typer.Option(help="List this many worst disagreements.", min=0)] = 20,
) -> None:
    """Judge-human and human-human agreement per domain and rubric dimension.

    Quadratic-weighted Cohen's kappa and Spearman for the judge against each person and for
    every pair of people, Krippendorff's alpha over all people, the verdict confusion and the
    predictions the judge and a person scored furthest apart: the Agreement page's numbers.
    """
    from storage.agreement import agreement

    with build_context() as context:
        report = agreement(context.database.session_factory, worst)
    if as_json:
        typer.echo(json.dumps(report.as_json(), indent=2))
        return

    def fmt(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    for row in report.dimensions:
        j, h = row.judge_human, row.human_human
        typer.echo(
            f"{row.domain} {row.dimension}: judge-human kappa {fmt(j.kappa)} spearman "
            f"{fmt(j.spearman)} ({j.pairs} pairs); human-human kappa {fmt(h.kappa)} spearman "
            f"{fmt(h.spearman)} ({h.pairs} pairs), alpha {fmt(row.alpha)}"
        )
    for cell in report.confusion:
        typer.echo(
            f"verdicts [{cell.domain}] judge {cell.judge} / person {cell.human}: {cell.count}"
        )
    for d in report.worst:
        typer.echo(
            f"prediction {d.prediction_id} [{d.domain}, {d.engine}]: judge {d.judge_total:.1f}, "
            f"{d.annotator} {d.human_mean:.1f} ({d.human_verdict})"
        )
    if not report.dimensions:
        typer.echo("No judge verdicts or shared annotations yet.")


def register(cli: typer.Typer) -> None:
    """Mount `awp annotations`."""
    cli.add_typer(annotations_app, name="annotations")
