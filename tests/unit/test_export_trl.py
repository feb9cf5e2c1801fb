"""TRL's dataset conventions accept the exported sft/dpo/kto rows (read back from JSONL).

Full trainer runs on a tiny model are in tests/integration/test_storage_export.py.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import datasets
import pytest

from backend.export.builders import FORMATS
from backend.export.records import ExportAnnotation, ExportContext, ExportRecord
from backend.export.writers import write_jsonl
from backend.types import HistoryMode, PromptContext, Turn
from backend.verdicts import Verdict
from tests.support.tiny_model import qwen3_tokenizer_dir

trl_data = pytest.importorskip("trl.data_utils")
ACTION = '[{"keystrokes": "cat a.txt\\n", "duration": 0.5}]'


def records() -> list[ExportRecord]:
    out = []
    verdicts = (Verdict.REJECT, Verdict.ACCEPT, Verdict.REJECT, Verdict.REJECT)
    for i, verdict in enumerate(verdicts):
        annotation = ExportAnnotation(
            annotation_id=i,
            annotator="ann",
            corrected_observation=f"$ cat a.txt\nline {i}\n$ ",
            ratings={"format": 5},
            verdict=verdict,
            tags=[],
            notes="",
            version=1,
            updated_at=datetime(2026, 1, 1, tzinfo=UTC),
        )
        out.append(
            ExportRecord(
                session_id=1,
                step_id=i,
                step_index=i,
                prediction_id=i,
                domain="terminal",
                engine="fake",
                model="m",
                history_mode=HistoryMode.TEACHER_FORCED,
                system_prompt=None,
                context=PromptContext(),
                initial_state="$ ",
                history=[Turn(action=ACTION, observation="$ cat a.txt\nold\n$ ")] * i,
                messages=None,
                action=ACTION,
                real_observation=None,
                previous_observation=None,
                predicted_observation="$ cat a.txt\nwrong\n$ ",
                raw_text="",
                created_at=datetime(2026, 1, 1, tzinfo=UTC),
                annotation=annotation,
            )
        )
    return out


@pytest.fixture(scope="module")
def tokenizer():
    transformers = pytest.importorskip("transformers")
    return transformers.AutoTokenizer.from_pretrained(qwen3_tokenizer_dir(), local_files_only=True)


def exported(name: str, tmp_path: Path) -> datasets.Dataset:
    path = tmp_path / f"{name}.jsonl"
    ctx = ExportContext(system_prompt=lambda domain, context: "You simulate a terminal.")
    write_jsonl((row for rec in records() for row in FORMATS.get(name).build(rec, ctx)), path)
    return datasets.load_dataset(
        "json", data_files=str(path), split="train", cache_dir=str(tmp_path / "c")
    )


@pytest.mark.parametrize(
    ("name", "keys"),
    [
        ("sft", {"prompt", "completion"}),
        ("dpo", {"prompt", "chosen", "rejected"}),
        ("kto", {"prompt", "completion", "label"}),
    ],
)
def test_rows_follow_trl_conventions(name: str, keys: set[str], tokenizer, tmp_path: Path) -> None:
    dataset = exported(name, tmp_path)
    assert dataset.num_rows >= 3
    for example in dataset:
        assert trl_data.is_conversational(example)
        rendered = trl_data.apply_chat_template(example, tokenizer)
        assert keys <= set(rendered)
        assert "You simulate a terminal." in rendered["prompt"]
        assert rendered["prompt"].rstrip().endswith("<|im_start|>assistant")
        for key in keys - {"prompt", "label"}:
            assert "**Environment Observation:**" in rendered[key]
    if name == "kto":
        assert isinstance(dataset[0]["label"], bool)
        assert sorted(dataset["label"]) == [False, False, False, True, True, True, True]
