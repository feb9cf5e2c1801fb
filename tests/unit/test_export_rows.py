"""Each export format's row shape is pinned: columns, order, types and what fills them."""

from __future__ import annotations

from datetime import UTC, datetime

import pyarrow as pa
import pytest

from backend.data.awb_layout import AgentWorldBenchRow
from backend.export.arrow import arrow_schema
from backend.export.builders import FORMATS
from backend.export.records import ExportAnnotation, ExportContext, ExportRecord, ExportScore
from backend.parsing import parse_output
from backend.provenance import Predicted, Recorded
from backend.scoring.reward import FORMULA_VERSION
from backend.types import ChatMessage, HistoryMode, PromptContext, Turn
from backend.verdicts import Verdict

ACTION = '[{"keystrokes": "ls\\n", "duration": 0.1}]'
BEFORE, PREDICTED, CORRECTED = "$ ls\na.txt\n$ ", "$ ls\na.txt\n$ ", "$ ls\nb.txt\n$ "
LINKS = [
    "domain",
    "session_id",
    "step_id",
    "prediction_id",
    "annotation_id",
    "engine",
    "model",
    "annotator",
    "author_role",
    "review",
    "grounded_by",
    "answered_by",
    "confidence",
    "history_dropped",
    "provenance",
    "real_provenance",
]
CONTENT = {
    "sft": ["prompt", "completion"],
    "dpo": ["prompt", "chosen", "rejected"],
    "kto": ["prompt", "completion", "label", "completion_source"],
    "cpt": ["text"],
    "reward": [
        "prompt",
        "reference",
        "previous",
        "prediction",
        "metrics",
        "judge",
        "human",
        "reward",
        "reward_formula",
        "reward_components",
    ],
    "agentworldbench": [
        "task",
        "id",
        "prompt",
        "response",
        "current_prompt",
        "system_str",
        "turn_idx",
        "total_turns",
    ],
}
CTX = ExportContext(system_prompt=lambda domain, context: f"You simulate {domain}.")


def record(
    corrected: str | None = CORRECTED, verdict: Verdict = Verdict.REJECT, **changes: object
) -> ExportRecord:
    annotation = None
    if corrected is not None:
        annotation = ExportAnnotation(
            annotation_id=5,
            annotator="ann",
            corrected_observation=corrected,
            ratings={
                "format": 4,
                "factuality": 2,
                "consistency": None,
                "realism": None,
                "quality": 3,
            },
            verdict=verdict,
            tags=["wrong-file"],
            notes="",
            version=2,
            updated_at=datetime(2026, 1, 2, tzinfo=UTC),
            author_role="reviewer",
            review="trusted",
            trusted_by="reviewer",
        )
    values: dict[str, object] = dict(
        session_id=1,
        step_id=2,
        step_index=1,
        prediction_id=3,
        domain="terminal",
        engine="fake",
        model="m",
        history_mode=HistoryMode.TEACHER_FORCED,
        system_prompt=None,
        context=PromptContext(),
        initial_state="$ ",
        history=[Turn(action=ACTION, observation=BEFORE)],
        messages=None,
        action=ACTION,
        real_observation=CORRECTED,
        previous_observation=BEFORE,
        predicted_observation=PREDICTED,
        raw_text=PREDICTED,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        scores=[ExportScore("exact", "1", 0.0), ExportScore("judge.format", "v1", 3.0)],
        annotation=annotation,
        grounded_by=["rec-1#2", "annotation:7"],
        answered_by="model",
        confidence=0.75,
        history_dropped=2,
        provenance=Predicted(engine="fake", model="m"),
        real_provenance=Recorded(dataset="bundled", file="r.jsonl", row_id="rec-1", turn=2),
    )
    values.update(changes)
    return ExportRecord(**values)  # type: ignore[arg-type]


def rows(name: str, rec: ExportRecord) -> list[dict]:
    return [row.model_dump() for row in FORMATS.get(name).build(rec, CTX)]


@pytest.mark.parametrize("name", list(CONTENT))
def test_columns_are_pinned(name: str) -> None:
    expected = [*LINKS, "schema_version", *CONTENT[name]]
    model = FORMATS.get(name).row_model
    assert list(model.model_fields) == expected
    assert model.model_fields["schema_version"].default == 3
    assert arrow_schema(model).names == expected
    built = rows(name, record())
    assert built and all(list(row) == expected for row in built)
    # Each observation's source travels with the row, in one flat struct per source.
    assert (
        built[0]["provenance"]["kind"] == "predicted" and built[0]["provenance"]["engine"] == "fake"
    )
    real = built[0]["real_provenance"]
    assert (real["kind"], real["dataset"], real["file"], real["row_id"], real["turn"]) == (
        "recorded",
        "bundled",
        "r.jsonl",
        "rec-1",
        2,
    )
    assert {k: built[0][k] for k in LINKS if "provenance" not in k} == {
        "domain": "terminal",
        "session_id": 1,
        "step_id": 2,
        "prediction_id": 3,
        "annotation_id": 5,
        "engine": "fake",
        "model": "m",
        "annotator": "ann",
        "author_role": "reviewer",
        "review": "trusted",
        "grounded_by": ["rec-1#2", "annotation:7"],
        "answered_by": "model",
        "confidence": 0.75,
        "history_dropped": 2,
    }


def test_arrow_types() -> None:
    schema = arrow_schema(FORMATS.get("reward").row_model)
    message = pa.struct(
        [pa.field("role", pa.string(), False), pa.field("content", pa.string(), False)]
    )
    assert schema.field("prompt").type == pa.list_(message)
    assert schema.field("annotation_id").nullable and not schema.field("session_id").nullable
    assert schema.field("reward").type == pa.float64()
    assert schema.field("human").type.value_type.names == ["dimension", "value"]


def test_chat_rows_hold_prompt_and_answers() -> None:
    (sft,) = rows("sft", record())
    assert [m["role"] for m in sft["prompt"]] == ["system", "user", "assistant", "user"]
    assert sft["prompt"][0]["content"] == "You simulate terminal."
    assert "**Current State:**\n$ " in sft["prompt"][1]["content"]
    assert sft["prompt"][2]["content"] == f"**Environment Observation:**\n{BEFORE}"
    assert sft["completion"] == [
        {"role": "assistant", "content": f"**Environment Observation:**\n{CORRECTED}"}
    ]
    assert parse_output(sft["completion"][0]["content"]).observation == CORRECTED.strip()

    (dpo,) = rows("dpo", record())
    assert (dpo["chosen"], dpo["prompt"]) == (sft["completion"], sft["prompt"])
    assert dpo["rejected"][0]["content"].endswith(PREDICTED)
    assert rows("sft", record(corrected=None)) == []


def test_stored_chats_are_exported_exactly_and_name_the_system_prompt() -> None:
    sent = [
        ChatMessage(role="system", content="The prompt the model really had."),
        ChatMessage(role="user", content="### Turn 1\n**Action:**\n```json\n[]\n```"),
    ]
    for name in ("sft", "dpo", "kto", "reward"):
        for row in rows(name, record(messages=sent)):
            assert row["prompt"] == [m.model_dump() for m in sent]
    (awb,) = rows("agentworldbench", record(messages=sent))
    assert awb["system_str"] == "The prompt the model really had."


def test_cpt_text_holds_the_whole_transition_with_its_truth() -> None:
    (annotated,) = rows("cpt", record())
    text = annotated["text"]
    assert text.startswith("You simulate terminal.")
    assert text.index(ACTION) < text.rindex(CORRECTED)
    assert text.endswith(CORRECTED)
    (unannotated,) = rows("cpt", record(corrected=None))
    assert unannotated["text"].endswith(CORRECTED)  # the real observation, no annotation needed
    assert rows("cpt", record(corrected=None, real_observation=None)) == []


def test_kto_labels() -> None:
    prediction, correction = rows("kto", record())
    assert (prediction["label"], prediction["completion_source"]) == (False, "prediction")
    assert (correction["label"], correction["completion_source"]) == (True, "correction")
    assert correction["completion"][0]["content"].endswith(CORRECTED)


ANSWERS = {
    "prediction": f"**Environment Observation:**\n{PREDICTED}",
    "correction": f"**Environment Observation:**\n{CORRECTED}",
}


def test_accept_makes_the_prediction_the_truth_in_every_format() -> None:
    # An accepted record keeps a stray correction from the editor: the verdict alone decides.
    accepted = record(corrected=CORRECTED, verdict=Verdict.ACCEPT)
    (sft,) = rows("sft", accepted)
    assert sft["completion"][0]["content"] == ANSWERS["prediction"]
    assert rows("dpo", accepted) == []
    (kto,) = rows("kto", accepted)
    assert (kto["label"], kto["completion_source"]) == (True, "prediction")
    (reward,) = rows("reward", accepted)
    assert reward["reference"] == PREDICTED
    (awb,) = rows("agentworldbench", accepted)
    assert awb["response"][-1] == ANSWERS["prediction"]


def test_reject_makes_the_correction_the_truth_in_every_format() -> None:
    rejected = record(verdict=Verdict.REJECT)
    assert rows("sft", rejected)[0]["completion"][0]["content"] == ANSWERS["correction"]
    (dpo,) = rows("dpo", rejected)
    assert (dpo["chosen"][0]["content"], dpo["rejected"][0]["content"]) == (
        ANSWERS["correction"],
        ANSWERS["prediction"],
    )
    assert [(r["completion_source"], r["label"]) for r in rows("kto", rejected)] == [
        ("prediction", False),
        ("correction", True),
    ]
    assert rows("reward", rejected)[0]["reference"] == CORRECTED
    assert rows("agentworldbench", rejected)[0]["response"][-1] == ANSWERS["correction"]


@pytest.mark.parametrize("name", list(CONTENT))
def test_cannot_tell_yields_no_row_in_any_format(name: str) -> None:
    # Even with a real observation recorded: the annotator's record establishes nothing.
    assert rows(name, record(verdict=Verdict.CANNOT_TELL)) == []


def test_block_domains_answer_in_a_block() -> None:
    tree = "[1] RootWebArea 'Home'\n\t[2] link 'About'"
    (sft,) = rows(
        "sft",
        record(domain="web", action="click('2')", history=[], corrected=tree, initial_state=None),
    )
    assert (
        sft["completion"][0]["content"]
        == f"<predicted_observation>\n{tree}\n</predicted_observation>"
    )


def test_reward_rows() -> None:
    (row,) = rows("reward", record())
    assert (row["reference"], row["previous"], row["prediction"]) == (CORRECTED, BEFORE, PREDICTED)
    assert {m["name"] for m in row["metrics"]} >= {"line_f1"}
    assert row["judge"] == [{"dimension": "format", "value": 3}]
    assert row["human"] == [
        {"dimension": "format", "value": 4},
        {"dimension": "factuality", "value": 2},
        {"dimension": "quality", "value": 3},
    ]
    assert [p["name"] for p in row["reward_components"]] == ["deterministic", "judge", "human"]
    assert row["reward_formula"] == FORMULA_VERSION and 0.0 <= row["reward"] <= 1.0
    (unlabelled,) = rows("reward", record(corrected=None, scores=[]))
    assert (unlabelled["reference"], unlabelled["annotator"], unlabelled["human"]) == (
        CORRECTED,
        None,
        [],
    )
    assert [p["name"] for p in unlabelled["reward_components"]] == ["deterministic"]
    assert rows("reward", record(corrected=None, real_observation=None)) == []


def test_agentworldbench_rows_are_official() -> None:
    (row,) = rows("agentworldbench", record())
    official = AgentWorldBenchRow.model_validate(row)
    assert (official.domain, official.turn_idx, official.total_turns) == ("terminal", 2, 2)
    assert row["response"][-1] == f"**Environment Observation:**\n{CORRECTED}"
    assert row["response"][0] == f"**Environment Observation:**\n{BEFORE}"
    assert (
        row["current_prompt"] == row["prompt"][-1] and row["system_str"] == "You simulate terminal."
    )
    assert row["id"] == "awp-session-1"


def test_trajectory_formats_carry_the_grounding_ids_too() -> None:
    (atif,) = rows("atif", record())
    assert atif["extra"]["grounded_by"] == ["rec-1#2", "annotation:7"]
    (sample,) = rows("inspect", record())
    assert sample["metadata"]["grounded_by"] == ["rec-1#2", "annotation:7"]
