"""Structured truth parses: the Annotate page refuses a broken MCP document beside the editor,
and `awp export` never writes one as a training target.

The real app over real SQLite through gradio_client, and the real CLI; predictions are seeded
through the one recorder.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from gradio_client import Client
from sqlalchemy import update

from app.context import AppContext
from storage.annotations import AnnotationInput, Ratings
from storage.models import AnnotationRow
from tests.support.annotate import annotate, submit
from tests.support.app_server import RunningApp, start_app
from tests.support.cli import run
from tests.support.postgres import fake_prediction
from tests.support.sessions import SessionWriter

CALL = '{"reservation_id": "JG7FMM", "status": "confirmed"}'
FIXED = '{"reservation_id": "JG7FMM", "status": "cancelled"}'
RATINGS = Ratings(format=2, factuality=1, consistency=2, realism=2, quality=1)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(tmp_path_factory.mktemp("structured"), anonymous_role="annotator")
    yield running
    running.close()


def seed(context: AppContext, *observations: str) -> list[int]:
    """One MCP session with a step per predicted observation; their real states unknown."""
    writer = SessionWriter(context.sessions, domain="mcp")
    action = json.dumps({"name": "get_reservation_details", "arguments": {"id": "JG7FMM"}})
    records = [writer.add(action, prediction=fake_prediction(text)) for text in observations]
    return [r.prediction_id for r in records if r.prediction_id is not None]


def test_a_broken_mcp_correction_is_refused_beside_the_editor(app: RunningApp) -> None:
    empty, called = seed(app.context, "", CALL)
    person = Client(app.url, verbose=False, headers={"X-Forwarded-For": "10.8.0.1"})

    # An empty prediction is corrected from MCP's empty document, so `{{}}` is JSON that breaks.
    opened = annotate(person, "open", empty)
    assert opened["editor"] == "{}"
    refused = submit(person, "{{}}", "reject", domain="mcp")
    assert "Not saved" in refused["message"]
    assert "line 1, column 2" in refused["editor_note"] and "JSON" in refused["editor_note"]

    # One stray character before the `{` is no "plain text" either.
    opened = annotate(person, "open", called)
    assert opened["editor"].startswith('{\n  "reservation_id"')  # shown pretty
    stray = "x" + opened["editor"].replace("confirmed", "cancelled")
    refused = submit(person, stray, "reject", domain="mcp")
    assert "'x' before the document" in html.unescape(refused["editor_note"])
    assert "line 1, column 1" in refused["editor_note"]
    assert app.context.annotations.list_annotations(domain="mcp") == []

    saved = submit(person, opened["editor"].replace("confirmed", "cancelled"), "reject")
    assert "Saved version 1" in saved["message"]
    (stored,) = app.context.annotations.list_annotations(domain="mcp")
    assert stored.corrected_observation == FIXED  # back in the recording's compact form


def test_export_skips_or_refuses_rows_whose_truth_does_not_parse(
    awp_context: AppContext, tmp_path: Path
) -> None:
    ids = seed(awp_context, CALL, CALL, "")
    for pid in ids:
        correction = AnnotationInput(verdict="reject", corrected_observation=FIXED, ratings=RATINGS)
        awp_context.annotations.submit(pid, "ann", correction)
    # Rows stored before corrections were checked: one stray character, and `{{}}`.
    with awp_context.database.session_factory.begin() as session:
        for pid, broken in zip(ids[1:], ("x" + FIXED, "{{}}"), strict=True):
            session.execute(
                update(AnnotationRow)
                .where(AnnotationRow.prediction_id == pid)
                .values(corrected_observation=broken)
            )

    out = tmp_path / "sft.jsonl"
    code, output = run("export", "--format", "sft", "--out", str(out))
    assert code == 0, output
    assert "Wrote 1 sft rows" in output
    assert "Skipped 2 records whose real observation does not parse as its domain's (mcp 2)" in (
        output.replace("\n", " ")
    )
    assert f"prediction #{ids[1]} (mcp): line 1, column 1: 'x' before the document" in (
        output.replace("\n", " ")
    )
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [row["completion"][-1]["content"] for row in rows] == [
        f"**Environment Observation:**\n{FIXED}"
    ]

    refused = tmp_path / "refused.jsonl"
    code, output = run("export", "--format", "sft", "--out", str(refused), "--refuse-unparsed")
    assert code != 0 and "Refused" in output and "nothing was written" in output
    assert not refused.exists()
