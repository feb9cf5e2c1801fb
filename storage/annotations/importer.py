"""Reading `awp annotations import` files: every line validated before anything is written."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from backend.errors import BadInputError
from storage.annotations.rules import explain
from storage.annotations.types import ImportRow

MAX_LISTED_ERRORS = 20


def bad_rows_message(problems: Sequence[tuple[int, str]]) -> str:
    """Refusal of a whole file: how many rows are bad, then each line and what is wrong."""
    listed = "\n".join(f"  line {line}: {what}" for line, what in problems[:MAX_LISTED_ERRORS])
    more = len(problems) - MAX_LISTED_ERRORS
    tail = f"\n  ... and {more} more" if more > 0 else ""
    return f"{len(problems)} bad rows; nothing was imported:\n{listed}{tail}"


def parse_import_file(path: Path) -> list[tuple[int, ImportRow]]:
    """Validate every row of a JSONL annotation file.

    Rows hold `prediction_id`, `annotator`, `verdict` (`accept`, `reject` or `cannot_tell`),
    `corrected_observation` (required for a reject), `ratings` ({format, factuality,
    consistency, realism, quality}, each 1-5: all or none, all for a reject), `tags`, `notes`.
    The rules that need the prediction are checked by `AnnotationStore.import_rows`.

    Returns:
        (1-based line number, row) for every non-blank line.

    Raises:
        BadInputError: the file cannot be read, or some rows are bad; the message lists their
            line numbers and what is wrong, and nothing should be imported.

    """
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInputError(f"Cannot read {path}: {exc}") from None
    rows: list[tuple[int, ImportRow]] = []
    errors: list[tuple[int, str]] = []
    # Split on "\n" only: observations may contain U+2028 and friends, which splitlines breaks on.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            rows.append((number, ImportRow.model_validate_json(line)))
        except ValidationError as exc:  # also raised for text that is not JSON
            errors.append((number, explain(exc)))
    if errors:
        raise BadInputError(f"{path}: {bad_rows_message(errors)}")
    if not rows:
        raise BadInputError(f"{path} holds no annotation rows.")
    return rows
