"""Reading `awp annotations import` files: every line validated before anything is written."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from backend.errors import BadInputError
from storage.annotations.types import ImportRow

MAX_LISTED_ERRORS = 20


def _explain(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        if err["type"] == "json_invalid":
            # Each row is one line: pydantic's "at line 1" would contradict our line numbers.
            detail = str(err.get("ctx", {}).get("error", "")).replace(
                " at line 1 column", " at column"
            )
            parts.append(f"not valid JSON ({detail})")
        else:
            parts.append(f"{'.'.join(str(p) for p in err['loc']) or 'row'}: {err['msg']}")
    return "; ".join(parts)


def parse_import_file(path: Path) -> list[tuple[int, ImportRow]]:
    """Validate every row of a JSONL annotation file.

    Rows hold `prediction_id`, `annotator`, `corrected_observation` and optionally `ratings`
    ({format, factuality, consistency, realism, quality}, each 1-5), `accept`, `tags`, `notes`.

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
    errors: list[str] = []
    # Split on "\n" only: observations may contain U+2028 and friends, which splitlines breaks on.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            rows.append((number, ImportRow.model_validate_json(line)))
        except ValidationError as exc:  # also raised for text that is not JSON
            errors.append(f"  line {number}: {_explain(exc)}")
    if errors:
        listed = "\n".join(errors[:MAX_LISTED_ERRORS])
        more = len(errors) - MAX_LISTED_ERRORS
        tail = f"\n  ... and {more} more" if more > 0 else ""
        raise BadInputError(
            f"{path}: {len(errors)} bad rows; nothing was imported:\n{listed}{tail}"
        )
    if not rows:
        raise BadInputError(f"{path} holds no annotation rows.")
    return rows
