"""`items.jsonl`: one row per (engine, item), appended and flushed as soon as it is scored.

Each row is written, flushed and fsynced on its own, so an interrupt (Ctrl-C, a killed process,
a full disk) loses only the items still in flight. A torn last line from a kill mid-write is
skipped on read, so a resumed run simply redoes that item.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from backend.scoring.base import MetricResult
from backend.scoring.judge import JudgeResult
from backend.types import Diagnostics

ROW_SCHEMA = 2


class ItemRow(BaseModel):
    """One engine's prediction for one item with every score (wire format, versioned).

    `status` is `ok`, or `error` when the engine or the scoring failed; failed rows are counted
    in the results and retried by `--resume`. `prediction_id` is the prediction stored in SQL
    (None when the run stored none, or for rows written before predictions were stored).
    `grounded_by` names the real transitions the prediction was shown (`awp bench --grounding`;
    empty for the official, ungrounded prompt and in rows of schema 1).
    """

    schema_version: int = ROW_SCHEMA
    engine: str
    model: str
    item_id: str
    domain: str
    status: str
    error: str | None = None
    predicted: str = ""
    finish_reason: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    diagnostics: Diagnostics | None = None
    metrics: list[MetricResult] = Field(default_factory=list)
    headline: str = ""
    headline_value: float | None = None
    judge: JudgeResult | None = None
    prediction_id: int | None = None
    grounded_by: list[str] = Field(default_factory=list)
    answered_by: str = Field(
        default="model", description="model, or record when `--record-answers` answered it."
    )
    confidence: float | None = Field(
        default=None, description="The model's confidence in the prediction, where known."
    )
    history_dropped: int = Field(
        default=0,
        description="The item's oldest history turns left out so its prompt fit the engine's "
        "context (`backend.history.fit_context`); 0 when none were, or in earlier rows.",
    )
    provenance: dict[str, Any] | None = Field(
        default=None,
        description="Where the predicted observation came from (`backend.provenance`): the "
        "engine and model, or the reality a record answer gave; None in earlier rows.",
    )
    reference_provenance: dict[str, Any] | None = Field(
        default=None,
        description="Where the item's reference came from (its recording's import, turn); "
        "None in earlier rows.",
    )
    raw_output: str | None = Field(
        default=None,
        exclude=True,
        description="The raw generation, kept in memory for the official judge; never written.",
    )


class ItemStore:
    """Reads and appends the rows of one benchmark directory.

    Args:
        path: the `items.jsonl` file.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def exists(self) -> bool:
        """True when the file holds at least one byte."""
        return self.path.is_file() and self.path.stat().st_size > 0

    def rows(self) -> list[ItemRow]:
        """All complete rows, the latest per (engine, item) winning; torn lines are skipped."""
        if not self.path.is_file():
            return []
        latest: dict[tuple[str, str], ItemRow] = {}
        for line in self.path.read_text(encoding="utf-8").split("\n"):
            row = _parse(line)
            if row is not None:
                latest[(row.engine, row.item_id)] = row
        return list(latest.values())

    def done(self) -> set[tuple[str, str]]:
        """(engine, item_id) pairs that finished without error; `--resume` skips them."""
        return {(row.engine, row.item_id) for row in self.rows() if row.status == "ok"}

    def append(self, row: ItemRow) -> None:
        """Append one row and force it to disk before returning.

        A torn last line is first closed with a newline, so it cannot swallow the next row.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        torn = self.exists() and not _ends_with_newline(self.path)
        with self.path.open("a", encoding="utf-8") as handle:
            if torn:
                handle.write("\n")
            handle.write(row.model_dump_json() + "\n")
            handle.flush()
            os.fsync(handle.fileno())


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def _parse(line: str) -> ItemRow | None:
    if not line.strip():
        return None
    try:
        data: Any = json.loads(line)
        return ItemRow.model_validate(data)
    except (json.JSONDecodeError, ValidationError):
        return None
