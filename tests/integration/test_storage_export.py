"""Stored sessions and annotations exported through `awp export`, read back, and trained on."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest
from typer.testing import CliRunner

from app.cli import build_cli
from backend.domains.base import PromptContext, get_domain
from backend.errors import BadInputError
from backend.scoring import score_observation
from storage.annotations import AnnotationInput, AnnotationStore, Ratings
from storage.migrate import head_revision
from storage.sessions import SessionStore
from tests.support.sessions import SessionWriter

SCREENS = ["$ ", "$ ls\na.txt\n$ ", "$ cat a.txt\nhello\n$ ", "$ rm a.txt\n$ "]
KEYS = ["ls", "cat a.txt", "rm a.txt"]


def terminal_action(keys: str) -> str:
    raw = json.dumps([{"keystrokes": keys + "\n", "duration": 0.1}])
    return get_domain("terminal").validate(raw, PromptContext())


@pytest.fixture
def seeded(database, make_prediction, monkeypatch, tmp_path) -> dict[str, list[int]]:
    """A 3-step terminal session (step 1 annotated twice, step 2 once) and a web step."""
    monkeypatch.setenv("AWP_DATABASE_URL", database.url)
    monkeypatch.setenv("AWP_DATA_DIR", str(tmp_path / "data"))
    sessions = SessionStore(database.session_factory)
    terminal = SessionWriter(
        sessions, initial_state=SCREENS[0], system_prompt="You simulate a Linux terminal."
    )
    ids = []
    for keys, before, after in zip(KEYS, SCREENS[:-1], SCREENS[1:], strict=True):
        prediction = make_prediction(before)  # a persistence-style guess
        scores = score_observation("terminal", prediction.observation, after, before)
        record = terminal.add(terminal_action(keys), after, "recorded", prediction, scores)
        ids.append(record.prediction_id)
    web = SessionWriter(sessions, "web", history_mode="blind")
    tree = "[1] RootWebArea 'Home'\n\t[2] link 'About'"
    ids.append(web.add("click('2')", tree, "live", make_prediction(tree)).prediction_id)
    store = AnnotationStore(database.session_factory)
    good = Ratings(format=5, factuality=4, consistency=4, realism=5, quality=4)
    poor = Ratings(format=2, factuality=2, consistency=2, realism=2, quality=2)
    for pid, who, text, ratings in (
        (ids[1], "ann", SCREENS[2], good),
        (ids[1], "bob", SCREENS[2], poor),
        (ids[2], "ann", SCREENS[3], good),
    ):
        reject = AnnotationInput(verdict="reject", corrected_observation=text, ratings=ratings)
        store.submit(pid, who, reject)
    store.submit(ids[3], "ann", AnnotationInput(verdict="accept", ratings=good))
    return {"predictions": ids, "session": [terminal.session_id, web.session_id]}


def run(*args: str) -> str:
    result = CliRunner().invoke(build_cli(), list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code == 0, result.output
    return result.output


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").split("\n") if line]


def test_formats_keep_links_and_context(seeded, tmp_path: Path) -> None:
    ids = seeded["predictions"]
    out = tmp_path / "sft.jsonl"
    assert "Wrote 4 sft rows" in run("export", "--format", "sft", "--out", str(out))
    rows = read_jsonl(out)
    assert [(r["prediction_id"], r["annotator"]) for r in rows] == [
        (ids[1], "ann"),
        (ids[1], "bob"),
        (ids[2], "ann"),
        (ids[3], "ann"),
    ]
    first = rows[0]
    assert (first["session_id"], first["engine"], first["model"], first["domain"]) == (
        seeded["session"][0],
        "fake",
        "fake-model",
        "terminal",
    )
    assert first["annotation_id"] and first["step_id"]
    assert [m["role"] for m in first["prompt"]] == ["system", "user", "assistant", "user"]
    assert first["prompt"][0]["content"] == "You simulate a Linux terminal."
    assert rows[3]["prompt"][0]["content"].startswith("#")  # the web domain's built-in prompt
    assert first["prompt"][2]["content"].endswith(SCREENS[1])  # teacher-forced real history
    assert first["completion"][0]["content"].endswith(SCREENS[2])

    run("export", "--format", "dpo", "--out", str(tmp_path / "dpo.jsonl"))
    assert len(read_jsonl(tmp_path / "dpo.jsonl")) == 3  # the web prediction was kept as is
    run("export", "--format", "kto", "--out", str(tmp_path / "kto.jsonl"))
    kto = read_jsonl(tmp_path / "kto.jsonl")
    assert sum(r["completion_source"] == "correction" for r in kto) == 3  # the web one was kept

    run("export", "--format", "reward", "--out", str(tmp_path / "reward.jsonl"))
    reward = read_jsonl(tmp_path / "reward.jsonl")
    assert sorted(r["prediction_id"] for r in reward) == sorted(
        [ids[0], ids[1], ids[1], ids[2], ids[3]]
    )
    unlabelled = next(r for r in reward if r["prediction_id"] == ids[0])
    assert (unlabelled["reference"], unlabelled["human"], unlabelled["previous"]) == (
        SCREENS[1],
        [],
        SCREENS[0],
    )

    run("export", "--format", "agentworldbench", "--out", str(tmp_path / "awb.jsonl"))
    awb = read_jsonl(tmp_path / "awb.jsonl")
    assert [r["turn_idx"] for r in awb] == [2, 2, 3, 1]
    assert awb[2]["response"][-1].endswith(SCREENS[3]) and awb[2]["response"][0].endswith(
        SCREENS[1]
    )


def test_filters(seeded, tmp_path: Path) -> None:
    out = tmp_path / "x.jsonl"
    run("export", "--format", "sft", "--out", str(out), "--domain", "web")
    assert [r["domain"] for r in read_jsonl(out)] == ["web"]
    run("export", "--format", "sft", "--out", str(out), "--min-rating", "4")
    assert "bob" not in {r["annotator"] for r in read_jsonl(out)} and len(read_jsonl(out)) == 3
    run("export", "--format", "reward", "--out", str(out), "--since", "2999-01-01")
    assert read_jsonl(out) == []
    run("export", "--format", "reward", "--out", str(out), "--since", "2000-01-01T00:00:00+02:00")
    assert len(read_jsonl(out)) == 5
    with pytest.raises(BadInputError, match="ISO date"):
        run("export", "--format", "sft", "--out", str(out), "--since", "yesterday")
    with pytest.raises(BadInputError, match="between 1 and 5"):
        run("export", "--format", "sft", "--out", str(out), "--min-rating", "9")


def test_parquet_and_datasets_folder(seeded, tmp_path: Path) -> None:
    run("export", "--format", "dpo", "--out", str(tmp_path / "dpo.parquet"))
    loaded = datasets.load_dataset(
        "parquet",
        data_files=str(tmp_path / "dpo.parquet"),
        split="train",
        cache_dir=str(tmp_path / "c"),
    )
    assert loaded.num_rows == 3 and "rejected" in loaded.column_names
    run("export", "--format", "reward", "--out", str(tmp_path / "reward"))
    folder = datasets.load_from_disk(str(tmp_path / "reward"))
    assert folder.num_rows == 5
    assert "Rows: 5" in (tmp_path / "reward" / "README.md").read_text("utf-8")


def test_annotation_cli(seeded, tmp_path: Path) -> None:
    ids = seeded["predictions"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        "\n".join(
            [
                json.dumps({"prediction_id": ids[0], "annotator": "cy", "verdict": "cannot_tell"}),
                json.dumps(
                    {
                        "prediction_id": ids[0],
                        "annotator": "cy",
                        "verdict": "cannot_tell",
                        "ratings": {"format": 7},
                    }
                ),
                "{not json",
                json.dumps({"prediction_id": ids[0], "verdict": "cannot_tell"}),
                json.dumps({"prediction_id": 99999, "annotator": "cy", "verdict": "cannot_tell"}),
            ]
        )
    )
    with pytest.raises(BadInputError) as refused:
        run("annotations", "import", str(bad))
    message = str(refused.value)
    assert "3 bad rows" in message and "line 2: ratings.format" in message
    assert "line 3: not valid JSON (key must be a string at column 2)" in message
    assert "line 4: annotator: Field required" in message and "line 1" not in message

    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text(
        bad.read_text().split("\n")[0] + "\n" + bad.read_text().split("\n")[4] + "\n"
    )
    with pytest.raises(BadInputError, match="line 2: prediction 99999 does not exist"):
        run("annotations", "import", str(unknown))
    assert "cy" not in run("annotations", "list")

    good = tmp_path / "good.jsonl"
    rows = [
        {
            "prediction_id": ids[0],
            "annotator": "cy",
            "verdict": "accept",
            "ratings": dict.fromkeys(("format", "factuality", "consistency", "realism"), 5)
            | {"quality": 4},
            "tags": ["ok"],
            "notes": "n",
        },
        {
            "prediction_id": ids[1],
            "annotator": "ann",
            "verdict": "reject",
            "corrected_observation": "edited elsewhere",
            "ratings": dict.fromkeys(
                ("format", "factuality", "consistency", "realism", "quality"), 3
            ),
        },
    ]
    good.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert "1 new annotations, 1 updated" in run("annotations", "import", str(good))
    listed = run("annotations", "list", "--annotator", "ann", "--json")
    versions = {
        json.loads(line)["corrected_observation"]: json.loads(line)["version"]
        for line in listed.splitlines()
    }
    assert versions["edited elsewhere"] == 2
    text = run("annotations", "list", "--domain", "terminal")
    assert "by cy v1 accept ratings 55554 tags ok" in text
    progress = run("annotations", "progress")
    assert "terminal: 3/3 predictions annotated, 1 by two or more" in progress
    assert "agreement overall: 1 pairs" in progress


def test_db_commands(database_url: str, monkeypatch) -> None:
    monkeypatch.setenv("AWP_DATABASE_URL", database_url)
    assert "revision -, empty" in run("db", "current")
    head = head_revision()
    assert f"is at revision {head}" in run("db", "upgrade")
    assert f"revision {head}, up to date" in run("db", "current")


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_trl_trainers_take_the_exports(seeded, tmp_path: Path) -> None:
    trl = pytest.importorskip("trl")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from backend.export.rewards import world_model_reward
    from tests.support.tiny_model import build_tiny_model

    folder = build_tiny_model(tmp_path / "model")
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder)
    common = dict(
        output_dir=str(tmp_path / "out"),
        max_steps=1,
        per_device_train_batch_size=2,
        report_to=[],
        use_cpu=True,
        save_strategy="no",
    )
    setups = {
        "sft": (trl.SFTTrainer, trl.SFTConfig(**common, max_length=1024), {}),
        "dpo": (trl.DPOTrainer, trl.DPOConfig(**common, max_length=1024), {}),
        "kto": (trl.KTOTrainer, trl.KTOConfig(**common, max_length=1024), {}),
        "reward": (
            trl.GRPOTrainer,
            trl.GRPOConfig(**common, num_generations=2, max_completion_length=8),
            {"reward_funcs": world_model_reward},
        ),
    }
    for name, (trainer_class, config, extra) in setups.items():
        out = tmp_path / f"{name}.jsonl"
        run("export", "--format", name, "--out", str(out), "--domain", "terminal")
        dataset = datasets.load_dataset(
            "json", data_files=str(out), split="train", cache_dir=str(tmp_path / "c")
        )
        trainer = trainer_class(
            model=model, args=config, train_dataset=dataset, processing_class=tokenizer, **extra
        )
        result = trainer.train()
        assert result.global_step == 1, name
