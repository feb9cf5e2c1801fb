"""Export writers: JSONL, Parquet and datasets folders that `datasets` reads back; Hub errors."""

from __future__ import annotations

from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest

from backend.errors import ExportError
from backend.export.arrow import arrow_schema
from backend.export.builders import FORMATS
from backend.export.card import dataset_card
from backend.export.hub import push_export
from backend.export.rows import Message, SFTRow
from backend.export.writers import output_kind, write_datasets_folder, write_jsonl, write_parquet

SCHEMA = arrow_schema(SFTRow)


def sft_rows(n: int, start: int = 0):
    for i in range(start, start + n):
        yield SFTRow(
            domain="search",
            session_id=i,
            step_id=i,
            prediction_id=i,
            annotation_id=None if i % 2 else i,
            engine="fake",
            model="m",
            annotator=None if i % 2 else "ann",
            grounded_by=[] if i % 2 else [f"rec#{i}"],
            prompt=[
                Message(role="system", content="S"),
                Message(role="user", content=f"a{i}\u2028b"),
            ],
            completion=[Message(role="assistant", content=f"o{i}")],
        )


def card(n: int) -> str:
    return dataset_card(FORMATS.get("sft"), n, {"domain": "search"})


def test_output_kind() -> None:
    assert [output_kind(Path(p)) for p in ("a.jsonl", "a.JSON", "a.parquet", "out/dir")] == [
        "jsonl",
        "jsonl",
        "parquet",
        "datasets",
    ]
    with pytest.raises(ExportError, match=r"\.jsonl, \.parquet"):
        output_kind(Path("a.csv"))


def test_jsonl_reads_back_with_datasets(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "sft.jsonl"
    assert write_jsonl(sft_rows(5), path) == 5
    assert len(path.read_text("utf-8").split("\n")) == 6  # U+2028 stays inside its row
    loaded = datasets.load_dataset(
        "json", data_files=str(path), split="train", cache_dir=str(tmp_path / "c")
    )
    assert loaded.num_rows == 5 and loaded[1]["annotation_id"] is None
    assert loaded[0]["prompt"][1] == {"role": "user", "content": "a0\u2028b"}
    assert not list(tmp_path.rglob("*.partial"))


def test_parquet_batches_keep_one_schema(tmp_path: Path) -> None:
    path = tmp_path / "sft.parquet"
    # The first batch has only odd rows (null annotation ids): the schema must not come from it.
    rows = (row for row in sft_rows(25) if row.session_id % 2 or row.session_id > 9)
    assert write_parquet(rows, path, SCHEMA, batch_size=4) == 20
    table = pq.read_table(path)
    assert table.schema.equals(SCHEMA) and table.num_rows == 20
    assert pq.ParquetFile(path).num_row_groups == 5
    loaded = datasets.load_dataset(
        "parquet", data_files=str(path), split="train", cache_dir=str(tmp_path / "c")
    )
    assert loaded[19]["completion"] == [{"role": "assistant", "content": "o24"}]
    assert write_parquet(iter(()), tmp_path / "empty.parquet", SCHEMA) == 0
    assert pq.read_table(tmp_path / "empty.parquet").schema.equals(SCHEMA)


def test_datasets_folder(tmp_path: Path) -> None:
    path = tmp_path / "sft"
    assert write_datasets_folder(sft_rows(7), path, SCHEMA, card) == 7
    loaded = datasets.load_from_disk(str(path))
    assert loaded.num_rows == 7 and loaded.column_names == SCHEMA.names
    readme = (path / "README.md").read_text("utf-8")
    assert (
        readme.startswith("---\nlicense: other")
        and "Rows: 7" in readme
        and "`completion`" in readme
    )
    assert (
        write_datasets_folder(sft_rows(2), path, SCHEMA, card) == 2
    )  # an earlier export is replaced
    assert datasets.load_from_disk(str(path)).num_rows == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sft"]


def test_datasets_folder_never_replaces_other_folders(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("precious")
    with pytest.raises(ExportError, match="not an earlier datasets export"):
        write_datasets_folder(sft_rows(1), tmp_path, SCHEMA, card)
    assert (tmp_path / "keep.txt").read_text() == "precious"


def test_push_without_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setattr("huggingface_hub.get_token", lambda: None)
    with pytest.raises(ExportError, match="needs a Hugging Face token"):
        push_export(tmp_path / "x.jsonl", "me/data", None, "card")


def test_push_offline_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    write_jsonl(sft_rows(1), path)
    with pytest.raises(ExportError, match="Cannot reach the Hugging Face Hub"):
        push_export(path, "me/data", "hf_fake", "card", endpoint="http://127.0.0.1:9")
