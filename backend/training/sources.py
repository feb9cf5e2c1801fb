"""Where training rows come from: recorded trajectories, or export rows (a file or corrections).

Storage is the caller's business: `app` hands in trajectories or rows, so this module stays free
of SQL like the rest of `backend`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from backend.benchmark.items import BenchItem, items_from_trajectories
from backend.errors import BadInputError
from backend.training.examples import Example, SystemPrompt, row_examples, transitions
from backend.training.methods import Method
from backend.types import Trajectory


@dataclass(frozen=True)
class TrainData:
    """Examples of one source, and benchmark items per split group where the source has them.

    Attributes:
        examples: every example (not yet split).
        items: held-out benchmark items by group; recorded trajectories have them, export rows
            do not (their prompts are fixed text, not requests the benchmark can re-ask).
        description: a line for the card and the runs table.
    """

    examples: list[Example]
    description: str
    items: dict[str, list[BenchItem]] = field(default_factory=dict)


def from_trajectories(
    trajectories: Iterable[Trajectory], method: Method, system_prompt: SystemPrompt
) -> TrainData:
    """Transitions of recorded trajectories, with their benchmark items.

    Raises:
        BadInputError: the method cannot train on recordings (dpo and kto need verdicts).
    """
    if method.columns is None:
        raise BadInputError(
            f"{method.name} trains on preferences, which recordings do not have; use "
            f"--data corrections or an export made with --format {method.export_format}."
        )
    listed = list(trajectories)
    examples = [
        Example(group=t.group, domain=t.domain, columns=method.columns(t))
        for t in transitions(listed, system_prompt)
    ]
    items = {
        t.id: [
            item.model_copy(
                update={"system_prompt": t.system_prompt or system_prompt(t.domain, item.context)}
            )
            for item in items_from_trajectories([t])
        ]
        for t in listed
    }
    return TrainData(examples, f"recorded: {len(listed)} trajectories", items)


def from_rows(rows: Iterable[Mapping[str, Any]], method: Method, description: str) -> TrainData:
    """Export rows (a file, or corrections built by the export formats).

    Raises:
        BadInputError: no rows, or the rows lack a column the method needs.
    """
    examples = list(row_examples(rows))
    if not examples:
        raise BadInputError(f"{description} holds no rows for {method.name}.")
    missing = [name for name in method.required if name not in examples[0].columns]
    if missing:
        raise BadInputError(
            f"{description} lacks the column(s) {', '.join(missing)} that {method.name} needs; "
            f"export it with --format {method.export_format}."
        )
    return TrainData(examples, description)


def read_export(path: Path) -> list[dict[str, Any]]:
    """Rows of an export file (JSONL, Parquet) or datasets folder.

    Raises:
        BadInputError: the path does not exist or is not an export.
    """
    import datasets

    if not path.exists():
        raise BadInputError(f"--data {path}: no such file or folder.")
    if path.is_dir():
        loaded = datasets.load_from_disk(str(path))
        table = loaded["train"] if isinstance(loaded, datasets.DatasetDict) else loaded
    elif path.suffix in {".jsonl", ".json"}:
        table = datasets.Dataset.from_json(str(path))
    elif path.suffix == ".parquet":
        table = datasets.Dataset.from_parquet(str(path))
    else:
        raise BadInputError(f"--data {path}: expected .jsonl, .parquet or a datasets folder.")
    return [dict(row) for row in table]
