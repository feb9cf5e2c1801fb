"""One export: records in, rows built by the chosen format, written by the path's writer.

The caller supplies the records (storage streams them), so this module stays free of SQL and
the CLI and the UI run the same code.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from backend.errors import ExportError
from backend.export.arrow import arrow_schema
from backend.export.builders import FORMATS, ExportFormat
from backend.export.card import dataset_card
from backend.export.hub import DATA_DIR, push_export
from backend.export.records import ExportContext, ExportRecord
from backend.export.writers import output_kind, write_datasets_folder, write_jsonl, write_parquet


@dataclass(frozen=True)
class ExportSummary:
    """What an export wrote (and where it was pushed)."""

    path: Path
    kind: str
    format: str
    rows: int
    pushed_to: str | None = None


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
) -> ExportSummary:
    """Write an export and optionally push it to the Hub.

    Args:
        format_name: sft, dpo, kto, cpt, reward or agentworldbench.
        records: the records to export (a stream; read once).
        out: `.jsonl`, `.parquet`, or a folder path without a suffix (datasets folder).
        ctx: what building rows needs (default system prompts).
        filters: the options used, recorded in the dataset card.
        push: a Hub dataset repository to upload to.
        token: a Hub token (default: HF_TOKEN or a stored login).

    Raises:
        UnknownNameError: an unknown format.
        ExportError: a bad output path, or the push failed (the export is written).

    """
    export_format = FORMATS.get(format_name)
    rows = build_rows(export_format, records, ctx)
    if export_format.writer is not None:
        count = export_format.writer(rows, out)
        if push:
            raise ExportError(f"{format_name} files are not pushed to the Hub; {out} is written.")
        return ExportSummary(path=out, kind=out.suffix.lstrip("."), format=format_name, rows=count)
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
    return ExportSummary(path=out, kind=kind, format=format_name, rows=count, pushed_to=pushed)
