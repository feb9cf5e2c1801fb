"""`awp bench --push` and `awp train --push`: the Hub's evaluation-results files, offline.

The files are built, written and read back with huggingface_hub's own eval-results code; the
push goes through huggingface_hub too and, with no Hub to reach, fails saying so, the files
kept.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from huggingface_hub import parse_eval_result_entries

from backend.data.agentworldbench import trajectory_to_rows
from backend.data.bundled import load_bundled
from backend.export.builders import FORMATS
from backend.export.card import dataset_card
from backend.integrations.hub_results import train_entries, write_results
from backend.training.evaluate import DomainRow, EvalTable
from tests.support.cli import run
from tests.support.fake_openai import FakeOpenAIServer, json_reply


@pytest.fixture
def offline_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    """A token, and a Hub endpoint nothing listens on."""
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")


def completion(text: str) -> Any:
    body = {
        "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2},
        "model": "wm",
    }
    return json_reply(200, body)


def test_bench_push_writes_eval_results_and_fails_clearly_offline(
    fake_openai: FakeOpenAIServer, awp_data: Path, tmp_path: Path, offline_hub: None
) -> None:
    terminal = next(t for t in load_bundled() if t.domain == "terminal")
    rows = trajectory_to_rows(terminal, terminal.system_prompt or "", [1, 2])
    dataset = tmp_path / "terminal_test.jsonl"
    dataset.write_text("".join(json.dumps(row) + "\n" for row in rows))
    fake_openai.script = [completion(str(terminal.turns[0].observation)), completion("junk")]
    out = tmp_path / "run"
    code, output = run(
        "bench",
        "--dataset",
        str(dataset),
        "--engine",
        "openai",
        "--model",
        "wm",
        "--base-url",
        fake_openai.base_url,
        "--concurrency",
        "2",
        "--out",
        str(out),
        "--push",
        "me/world-model",
    )
    assert code == 2 and "Cannot reach the Hugging Face Hub" in output
    results = json.loads((out / "results.json").read_text())["engines"]["openai"]
    written = yaml.safe_load((out / "hub" / ".eval_results" / "agentworldbench.yaml").read_text())
    entries = parse_eval_result_entries(written)
    assert [(e.dataset_id, e.task_id) for e in entries] == [
        ("Qwen/AgentWorldBench", "terminal"),
        ("Qwen/AgentWorldBench", "overall"),
    ]
    domain = results["domains"]["terminal"]
    assert entries[0].value == round(domain["headline_value"] * 100, 2)
    assert entries[0].notes == f"screen_delta v{domain['headline_version']} x100, teacher_forced"
    card = (out / "hub" / "README.md").read_text()
    assert "| `screen_delta` | 2 |" in card and "me/world-model" not in card


def test_push_is_refused_before_a_run_it_could_not_publish(awp_data: Path, tmp_path: Path) -> None:
    code, output = run(
        "bench",
        "--dataset",
        "bundled",
        "--engine",
        "openai",
        "--push",
        "me/m",
        "--out",
        str(tmp_path / "run"),
    )
    assert code == 2 and "--results-dataset" in output and not (tmp_path / "run").exists()
    code, output = run("bench", "--dataset", "bundled", "--engine", "oracle", "--push", "me/m")
    assert code == 2 and "only baselines" in output
    code, output = run(
        "train", "sft", "--data", "recorded", "--out", str(tmp_path / "t"), "--push", "me/m"
    )
    assert code == 2 and "--results-dataset" in output


def test_train_results_become_entries_the_hub_parser_reads(tmp_path: Path) -> None:
    table = EvalTable(
        rows=[
            DomainRow(domain="web", headline="change_f1", items=2, base=0.1, tuned=0.4567),
            DomainRow(domain="mcp", headline="json_delta_f1", items=1, base=0.0, tuned=None),
        ],
        macro={"base": 0.05, "tuned": 0.4567},
    )
    path = write_results(tmp_path, "heldout", train_entries(table, "me/heldout", "recorded"))
    (web, overall) = parse_eval_result_entries(yaml.safe_load(path.read_text()))
    assert (web.task_id, web.value, overall.task_id) == ("web", 45.67, "overall")
    assert "held-out split of recorded" in web.notes


def test_the_benchmark_dataset_card_names_the_metric_versions() -> None:
    card = dataset_card(FORMATS.get("agentworldbench"), 3, {"domain": "terminal"})
    assert "`screen_delta` v2" in card and "`change_f1`" not in card
