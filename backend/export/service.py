"""One export: records in, rows built by the chosen format, written by the path's writer.

The caller supplies the records (storage streams them), so this module stays free of SQL and
the CLI and the UI run the same code.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from backend.errors import ExportError
from backend.export.arrow import arrow_schema
from backend.export.builders import FORMATS, ExportFormat
from backend.export.card import dataset_card
from backend.export.hub import DATA_DIR, push_export
from backend.export.records import ExportContext, ExportRecord
from backend.export.writers import output_kind, write_datasets_folder, write_jsonl, write_parquet
from backend.observations import observation_problem


@dataclass
class Unparsed:
    """Records left out because their truth does not parse as their domain's observation.

    Attributes:
        count: how many.
        by_domain: how many per domain.
        first: where the first of them breaks ("prediction #3 (mcp): line 1, column 1: ...").
    """

    count: int = 0
    by_domain: Counter[str] = field(default_factory=Counter)
    first: str = ""

    def says(self) -> str:
        """One sentence for the person who exported ("" when nothing was left out)."""
        if not self.count:
            return ""
        domains = ", ".join(f"{domain} {n}" for domain, n in sorted(self.by_domain.items()))
        return (
            f"Skipped {self.count} record{'s' * (self.count != 1)} whose real observation does "
            f"not parse as its domain's ({domains}); the first: {self.first}."
        )


@dataclass(frozen=True)
class ExportSummary:
    """What an export wrote (and where it was pushed), and what it left out."""

    path: Path
    kind: str
    format: str
    rows: int
    pushed_to: str | None = None
    unparsed: Unparsed = field(default_factory=Unparsed)


def parsed_only(
    records: Iterable[ExportRecord], unparsed: Unparsed, refuse: bool = False
) -> Iterator[ExportRecord]:
    """The records whose truth parses in a structured domain (`backend.observations`).

    A broken document (stored before corrections were checked, or recorded so) must not become
    a training target; the others pass. Each one left out is counted in `unparsed`.

    Raises:
        ExportError: `refuse` and a record's truth does not parse (the output is not written).
    """
    for record in records:
        truth = record.reference
        problem = observation_problem(record.domain, truth) if truth is not None else None
        if problem is None:
            yield record
            continue
        where = f"prediction #{record.prediction_id} ({record.domain}): {problem}"
        if refuse:
            raise ExportError(
                f"Refused: the real observation of {where}; nothing was written. Fix or delete "
                "that annotation, or export without refusing to skip such rows."
            )
        unparsed.count += 1
        unparsed.by_domain[record.domain] += 1
        unparsed.first = unparsed.first or where


def build_rows(
    export_format: ExportFormat, records: Iterable[ExportRecord], ctx: ExportContext
) -> Iterator[BaseModel]:
    """Rows of `export_format` for every record, lazily."""
    for record in records:
        yield from export_format.build(record, ctx)


def export(
    format_name: str,
    records: Iterable[ExportRecord],
    out: Path,
    ctx: ExportContext,
    filters: Mapping[str, object],
    push: str | None = None,
    token: str | None = None,
    refuse_unparsed: bool = False,
) -> ExportSummary:
    """Write an export and optionally push it to the Hub.

    Records whose truth does not parse as their structured domain's observation are left out
    and counted (`parsed_only`), or refuse the whole export.

    Args:
        format_name: sft, dpo, kto, cpt, reward or agentworldbench.
        records: the records to export (a stream; read once).
        out: `.jsonl`, `.parquet`, or a folder path without a suffix (datasets folder).
        ctx: what building rows needs (default system prompts).
        filters: the options used, recorded in the dataset card.
        push: a Hub dataset repository to upload to.
        token: a Hub token (default: HF_TOKEN or a stored login).
        refuse_unparsed: refuse the export when a record's truth does not parse.

    Raises:
        UnknownNameError: an unknown format.
        ExportError: a bad output path, the push failed (the export is written), or
            `refuse_unparsed` and a truth does not parse (nothing is written).

    """
    export_format = FORMATS.get(format_name)
    unparsed = Unparsed()
    rows = build_rows(export_format, parsed_only(records, unparsed, refuse_unparsed), ctx)
    if export_format.writer is not None:
        count = export_format.writer(rows, out)
        if push:
            raise ExportError(f"{format_name} files are not pushed to the Hub; {out} is written.")
        kind = out.suffix.lstrip(".")
        return ExportSummary(out, kind, format_name, count, unparsed=unparsed)
    kind = output_kind(out)
    if export_format.json_only and kind != "jsonl":
        raise ExportError(
            f"{format_name} rows hold free-form JSON (tool arguments): write them to a .jsonl file."
        )
    if kind == "jsonl":
        count = write_jsonl(rows, out)
    elif kind == "parquet":
        count = write_parquet(rows, out, arrow_schema(export_format.row_model))
    else:
        count = write_datasets_folder(
            rows,
            out,
            arrow_schema(export_format.row_model),
            lambda n: dataset_card(export_format, n, filters),
        )
    pushed = None
    if push:
        data_files = None if kind == "datasets" else f"{DATA_DIR}/{out.name}"
        card = dataset_card(export_format, count, filters, data_files)
        pushed = push_export(out, push, token, card)
    return ExportSummary(out, kind, format_name, count, pushed, unparsed)
