"""Row readers for dataset files: JSON lines, Parquet and `datasets` folders, by file kind.

Each reader yields `(where, row)` pairs; `where` names the file and line (or row) so that an
importer can point a person at the exact bad record.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from backend.errors import BadInputError

Rows = Iterator[tuple[str, dict[str, Any]]]
PARQUET_BATCH = 256


def read_jsonl(path: Path) -> Rows:
    """Rows of a JSON-lines file, read one line at a time so that memory does not grow with it.

    Lines are split on the newline character only (a binary file iterates that way):
    `str.splitlines` would also split on U+2028 and similar separators, which occur inside
    AgentWorldBench search observations.
    """
    try:
        file = path.open("rb")
    except OSError as exc:
        raise BadInputError(f"Cannot read {path}: {exc}") from exc
    with file:
        for number, data in enumerate(file, start=1):
            where = f"{path}:{number}"
            try:
                line = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise BadInputError(f"{where}: not UTF-8 text ({exc.reason})") from None
            if line.strip():
                yield where, _json_object(line, where)


def _json_object(line: str, where: str) -> dict[str, Any]:
    """One line's JSON object.

    Raises:
        BadInputError: not JSON, nested too deeply for the parser, or not an object.
    """
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BadInputError(f"{where}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise BadInputError(f"{where}: the JSON is nested too deeply to read") from None
    if not isinstance(row, dict):
        raise BadInputError(f"{where}: a row must be a JSON object")
    return row


def read_parquet(path: Path) -> Rows:
    """Rows of a Parquet file, read in batches so a large file never sits in memory twice."""
    import pyarrow.parquet as pq

    try:
        batches = pq.ParquetFile(path).iter_batches(batch_size=PARQUET_BATCH)
        number = 0
        for batch in batches:
            for row in batch.to_pylist():
                number += 1
                yield f"{path} row {number}", row
    except (OSError, ValueError) as exc:
        raise BadInputError(f"Cannot read Parquet file {path}: {exc}") from exc


def read_datasets_folder(path: Path) -> Rows:
    """Rows of a folder written by `datasets.save_to_disk` (a Dataset or a DatasetDict)."""
    import datasets

    try:
        loaded = datasets.load_from_disk(str(path))
    except (OSError, ValueError) as exc:
        raise BadInputError(f"Cannot load the datasets folder {path}: {exc}") from exc
    splits = loaded.items() if isinstance(loaded, datasets.DatasetDict) else [("", loaded)]
    for split, dataset in splits:
        label = f"{path} [{split}]" if split else str(path)
        for number, row in enumerate(dataset, start=1):
            yield f"{label} row {number}", dict(row)


READERS: dict[str, Callable[[Path], Rows]] = {
    ".jsonl": read_jsonl,
    ".json": read_jsonl,
    ".parquet": read_parquet,
}
"""File suffix -> reader. `.json` files are read as JSON lines, the layout datasets use."""

DATASETS_MARKERS = ("dataset_info.json", "dataset_dict.json", "state.json")
FOLDER_SUFFIXES = (".jsonl", ".parquet")
"""Suffixes collected from a plain folder; loose `.json` files there are usually metadata."""


def read_rows(path: Path) -> Rows:
    """Rows of a file, a `datasets` folder, or every data file under a folder (sorted).

    Raises:
        BadInputError: the path does not exist, has an unknown kind, or holds no data file.
    """
    if path.is_dir():
        if any((path / marker).is_file() for marker in DATASETS_MARKERS):
            yield from read_datasets_folder(path)
            return
        files = sorted(p for p in path.rglob("*") if p.suffix in FOLDER_SUFFIXES and p.is_file())
        if not files:
            kinds = ", ".join(FOLDER_SUFFIXES)
            raise BadInputError(f"{path} holds no data file ({kinds}) and no datasets folder")
        for file in files:
            yield from READERS[file.suffix](file)
        return
    if not path.is_file():
        raise BadInputError(f"{path} does not exist")
    reader = READERS.get(path.suffix)
    if reader is None:
        kinds = ", ".join(sorted(READERS))
        raise BadInputError(f"{path}: unknown file kind (expected {kinds} or a datasets folder)")
    yield from reader(path)
