"""Exports from the UI: preview and count rows, write a file to download, push to the Hub.

The same `backend.export.service.export` as `awp export` writes the file; only admins may run
any of it, since exports carry every annotator's work.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import islice

from backend.errors import BadInputError
from backend.export.builders import FORMATS
from backend.export.service import ExportSummary, Unparsed, build_rows, export, parsed_only
from storage.export_source import ExportQuery
from ui.services import Services
from ui.users import AccessDeniedError, User

PREVIEW_ROWS = 3
FILE_KINDS = ("jsonl", "parquet")


@dataclass(frozen=True)
class ExportRequest:
    """The format and filters chosen on the Export page."""

    format: str
    domain: str | None = None
    since: str | None = None
    min_rating: float | None = None

    def query(self) -> ExportQuery:
        """The storage query for these filters.

        Raises:
            BadInputError: `since` is not an ISO date, or the rating is outside 1-5.
        """
        if self.min_rating is not None and not 1 <= self.min_rating <= 5:
            raise BadInputError(
                f"The minimum rating must be between 1 and 5; got {self.min_rating}."
            )
        return ExportQuery(
            domain=self.domain or None,
            since=_since(self.since),
            min_rating=self.min_rating,
            annotated_only=FORMATS.get(self.format).needs_annotation,
        )

    def filters(self) -> dict[str, object]:
        """The filters as the dataset card records them."""
        return {"domain": self.domain, "since": self.since, "min_rating": self.min_rating}


def _since(value: str | None) -> datetime | None:
    if not value or not value.strip():
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise BadInputError(
            f"'Since' must be an ISO date like 2026-01-31; got {value!r}."
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class Exporter:
    """Export operations, refused to anyone but admins."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def preview(self, user: User, request: ExportRequest) -> tuple[int, str]:
        """The number of rows the export would hold and the first few as pretty JSON."""
        _require_admin(user)
        records = self.services.export_records(request.query())
        parsed = parsed_only(records, Unparsed())  # what `write` would write
        rows = build_rows(FORMATS.get(request.format), parsed, self.services.export_context)
        head = [row.model_dump(mode="json") for row in islice(rows, PREVIEW_ROWS)]
        count = len(head) + sum(1 for _ in rows)
        return count, json.dumps(head, indent=2, ensure_ascii=False)

    def write(self, user: User, request: ExportRequest, kind: str, push: str = "") -> ExportSummary:
        """Write the export under `<data dir>/exports/` (and push it when a repo is given)."""
        _require_admin(user)
        if kind not in FILE_KINDS:
            raise BadInputError(
                f"Unknown file type {kind!r}; choose one of {', '.join(FILE_KINDS)}."
            )
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        out = self.services.data_dir / "exports" / f"{request.format}-{stamp}.{kind}"
        out.parent.mkdir(parents=True, exist_ok=True)
        records = self.services.export_records(request.query())
        return export(
            request.format,
            records,
            out,
            self.services.export_context,
            request.filters(),
            push.strip() or None,
        )


def _require_admin(user: User) -> None:
    if not user.is_admin:
        raise AccessDeniedError("Only admins can export annotated data.")
