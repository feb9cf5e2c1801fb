"""`awp train`: split by trajectory, history cut (never the target), every method, served."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from transformers import AutoTokenizer

from app.context import build_context
from app.training import run_training
from backend.engines.base import EngineConfig, build_engine
from backend.errors import ExportError
from backend.jobs import JobRegistry, JobStatus, JobView, current_job
from backend.training.config import TrainConfig
from backend.training.events import ProgressEvent
from backend.training.examples import Example
from backend.training.results import TrainResults
from backend.training.service import push_model
from backend.training.split import split_groups
from backend.training.truncate import fit_examples, layout
from backend.types import ChatMessage, ChatRequest, SamplingParams, SimRequest, Turn
from storage.run_kinds import TrainRun
from tests.integration.test_storage_export import seeded  # noqa: F401  (a fixture)
from tests.support.cli import run

FAST = ("--max-steps", "1", "--grad-accum", "1", "--max-length", "1024")

SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
"""Training from an export FILE does not touch the database beyond the export, whose reading
from PostgreSQL `test_storage_export` covers; one backend saves a minute of training."""


def test_split_is_by_trajectory_per_domain_and_fixed_by_seed() -> None:
    pairs = [(d, f"{d}-{i}") for d in ("terminal", "web") for i in range(10) for _ in range(3)]
    split = split_groups(pairs, 0.3, seed=7)
    assert not set(split.train) & set(split.heldout)
    assert sorted(split.train + split.heldout) == sorted({g for _, g in pairs})
    held = {d: sum(g.startswith(d) for g in split.heldout) for d in ("terminal", "web")}
    assert held == {"terminal": 3, "web": 3}
    assert split_groups(reversed(pairs), 0.3, seed=7) == split
    assert split_groups(pairs, 0.3, seed=8) != split
    assert split_groups([("os", "only")], 0.3, seed=0).heldout == []


def test_history_is_cut_from_the_oldest_turn_never_the_target(tiny_model_dir: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    turns = [
        Turn(action=f"echo {i} " + "x " * 40, observation=f"out {i} " + "y " * 40) for i in range(6)
    ]
    request = SimRequest(
        domain="terminal", system_prompt="sys", initial_state="start", history=turns, action="now"
    )
    prompt = layout(request)
    target = [{"role": "assistant", "content": "THE TARGET"}]
    long = Example("a", "terminal", {"prompt": prompt, "completion": target})
    short = Example("b", "terminal", {"prompt": [prompt[0], prompt[-1]], "completion": target})
    too_long = [prompt[0], {"role": "user", "content": "z " * 800}]
    hopeless = Example("c", "terminal", {"prompt": too_long, "completion": target})
    fitted, report = fit_examples(tokenizer, [long, short, hopeless], max_length=400)
    assert (report.kept, report.cut, report.dropped) == (1, 1, 1)
    cut = fitted[0].columns
    assert cut["completion"] == target and cut["prompt"][0]["content"] == "sys"
    kept = len(cut["prompt"]) // 2 - 1
    assert 0 < kept < len(turns)  # the newest history survives, the oldest went
    dropped = len(turns) - kept
    start = turns[dropped - 1].observation  # the dropped turns' last state starts the history
    assert cut["prompt"] == layout(
        request.model_copy(update={"history": turns[dropped:], "initial_state": start})
    )
    assert cut["prompt"][1]["content"].startswith(f"### Turn 1\n**Current State:**\n{start}")


def test_sft_on_recordings_benchmarks_heldout_and_serves(
    tiny_model_dir: Path, awp_data: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    args = ("train", "sft", "--data", "recorded", "--base", str(tiny_model_dir), "--out", str(out))
    code, output = run(*args, *FAST, "--eval-limit", "3", "--eval-max-new-tokens", "4")
    assert code == 0, output
    assert "| **macro** |" in output
    results = json.loads((out / "train_results.json").read_text())
    split = json.loads((out / "split.json").read_text())
    assert split["heldout"] and not set(split["train"]) & set(split["heldout"])
    assert results["steps"] == 1 and results["losses"]
    assert results["sizes"]["cut"] + results["sizes"]["dropped"] > 0  # the budget was enforced
    rows = results["eval"]["rows"]
    assert rows and all(row["oracle"] == 1.0 for row in rows)
    before = [json.loads(line) for line in (out / "eval/before/items.jsonl").open()]
    assert {r["item_id"].split("#")[0] for r in before} <= set(split["heldout"])
    card = (out / "README.md").read_text()
    assert "license: apache-2.0" in card and "| domain | headline |" in card
    with build_context() as context:
        stored = context.runs.list_runs(TrainRun)
    assert [(r.status, r.model_dir) for r in stored] == [("finished", str(out / "model"))]
    assert stored[0].losses and stored[0].eval_table["rows"] == rows
    # The before/after evaluation measured the bare model, and the run says so.
    [world] = stored[0].worlds
    assert (world["purpose"], world["grounding"], world["record_answers"]) == (
        "training_eval",
        False,
        False,
    )
    code, output = run(*args, *FAST)
    assert code == 2 and "holds a finished run" in output
    finished = TrainResults.model_validate(results)
    assert (out / "model" / "README.md").read_text() == card  # the card travels with the model
    with pytest.raises(ExportError, match="Cannot reach the Hugging Face Hub"):
        push_model(finished, "me/world-model", "hf_fake", endpoint="http://127.0.0.1:9")
    engine = build_engine(
        EngineConfig(name="transformers", model=str(out / "model"), data_dir=awp_data)
    )
    request = ChatRequest(
        messages=[ChatMessage(role="user", content="ls")],
        params=SamplingParams(temperature=0, max_new_tokens=3),
    )
    (completion,) = engine.generate([request])
    assert completion.completion_tokens == 3 and completion.model == str(out / "model")


@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("method", ["dpo", "kto", "grpo"])
def test_preference_and_rl_methods_train_on_corrections_from_sql(
    method: str, tiny_model_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / method
    code, output = run(
        "train",
        method,
        "--data",
        "corrections",
        "--base",
        str(tiny_model_dir),
        "--out",
        str(out),
        "--eval-split",
        "0",
        *FAST,
    )
    assert code == 0, output
    results = json.loads((out / "train_results.json").read_text())
    assert results["steps"] == 1 and results["eval"] is None
    assert (out / "model" / "config.json").exists() and (out / "adapter").is_dir()


@pytest.mark.usefixtures("seeded")
@SQLITE_ONLY
def test_cpt_trains_on_a_cpt_export_file(tiny_model_dir: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "cpt.parquet"
    code, output = run("export", "--format", "cpt", "--out", str(corpus))
    assert code == 0 and "5 cpt rows" in output, output
    out = tmp_path / "cpt"
    code, output = run(
        "train",
        "cpt",
        "--data",
        str(corpus),
        "--base",
        str(tiny_model_dir),
        "--out",
        str(out),
        "--eval-split",
        "0",
        "--full",
        *FAST,
    )
    assert code == 0, output
    results = json.loads((out / "train_results.json").read_text())
    assert results["steps"] == 1 and results["adapter_dir"] is None
    assert results["data"] == f"export {corpus}"


@pytest.mark.usefixtures("seeded")
@SQLITE_ONLY
def test_resume_continues_from_the_last_checkpoint(tiny_model_dir: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "cpt.jsonl"
    assert run("export", "--format", "cpt", "--out", str(corpus))[0] == 0
    out = tmp_path / "run"
    common = (
        "train",
        "cpt",
        "--data",
        str(corpus),
        "--base",
        str(tiny_model_dir),
        "--out",
        str(out),
        "--eval-split",
        "0",
        "--full",
        "--grad-accum",
        "1",
        "--save-steps",
        "1",
    )
    code, output = run(*common, "--max-steps", "2")
    assert code == 0, output
    first = json.loads((out / "train_results.json").read_text())
    assert first["steps"] == 2 and (out / "checkpoints" / "checkpoint-2").is_dir()
    code, output = run(*common, "--max-steps", "4")
    assert code == 2 and "--resume" in output  # never overwritten by accident
    code, output = run(*common, "--max-steps", "4", "--resume")
    assert code == 0, output
    resumed = json.loads((out / "train_results.json").read_text())
    assert resumed["steps"] == 4
    assert resumed["losses"] and all(step > 2 for step, _ in resumed["losses"])


def test_preferences_need_corrections_not_recordings(
    tiny_model_dir: Path, awp_data: Path, tmp_path: Path
) -> None:
    code, output = run(
        "train",
        "dpo",
        "--data",
        "recorded",
        "--base",
        str(tiny_model_dir),
        "--out",
        str(tmp_path / "x"),
    )
    assert code == 2 and "--data corrections" in output


def test_a_cancelled_training_job_stops_after_a_step_checkpointed_and_resumes(
    tiny_model_dir: Path, awp_data: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    config = TrainConfig(
        method="sft",
        data="recorded",
        base=str(tiny_model_dir),
        out=out,
        max_steps=4,
        eval_split=0,
        grad_accum=1,
        max_length=1024,
    )
    registry = JobRegistry(workers=1)
    logged: list[tuple[int, JobView]] = []

    def cancel_at_the_first_step(event: ProgressEvent) -> None:
        job = current_job()
        if job is not None:  # an assertion here would only stop the training, unseen
            logged.append((event.step, job.view()))
            registry.cancel(job.id)

    with build_context() as context:
        job = registry.submit(
            "train",
            "admin",
            "Training",
            lambda job: run_training(context, config, cancel_at_the_first_step, False, "admin"),
        )
        assert job.wait(600)
        [stored] = context.runs.list_runs(TrainRun)
    registry.close()
    view = job.view()
    assert view.status is JobStatus.CANCELLED and view.run_id == stored.id
    # The step under way when Cancel came was finished and checkpointed; no model was saved.
    first = logged[0][1]
    assert (first.stage, first.done, first.total) == ("training", 1, 4)
    assert first.unit == "training steps"
    assert [step for step, _ in logged] == [1, 2]
    assert (out / "checkpoints" / "checkpoint-2").is_dir()
    assert not (out / "model").exists()
    assert stored.status == "interrupted" and stored.done == 2
    assert stored.message is not None
    assert stored.message.startswith(f"Cancelled; `awp train --resume --out {out}`")
    code, output = run(
        "train", "sft", "--data", "recorded", "--base", str(tiny_model_dir), "--out", str(out),
        "--eval-split", "0", "--max-steps", "4", "--grad-accum", "1", "--max-length", "1024",
        "--resume",
    )  # fmt: skip
    assert code == 0, output
    resumed = json.loads((out / "train_results.json").read_text())
    assert resumed["steps"] == 4 and all(step > 2 for step, _ in resumed["losses"])
