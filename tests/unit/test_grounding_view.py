"""Playground, Replay and Annotate say how many real steps grounded a prediction, each linked."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from backend.types import HistoryMode, PromptContext
from storage.annotations.types import CorrectionPlace, QueueItem
from storage.records import StoredPrediction, StoredSession, StoredStep
from tests.support.postgres import fake_prediction
from ui.annotate import Draft
from ui.pages.annotate_view import header
from ui.provenance import correction_ids, grounding_html
from ui.session_view import grounding_refs, session_html, shown_steps
from ui.views import status_html


def test_a_grounded_prediction_names_its_real_steps() -> None:
    grounded = fake_prediction("$ ").model_copy(
        update={"grounded_by": ["swe-agent/rock#2", "annotation:<7>"]}
    )
    html = status_html(grounded)
    assert "grounded</b> by 2 real steps" in html
    assert (
        '<a href="?tab=replay&amp;recording=swe-agent%2Frock&amp;turn=2" target="_blank" '
        'rel="noopener" data-ref="swe-agent/rock#2">recording swe-agent/rock, turn 2</a>'
    ) in html
    assert "<li>annotation:&lt;7&gt;</li>" in html  # no known form: named, not linked
    assert "grounded" not in status_html(fake_prediction("$ "))


def test_a_correction_is_named_by_the_session_step_it_corrects() -> None:
    refs = ["annotation:7", "annotation:9", "rec<x>#1"]
    assert correction_ids(refs) == [7, 9]
    html = grounding_html(refs, {7: CorrectionPlace(7, 3, 1, "terminal")})
    assert '<a href="?tab=sessions&amp;annotation=7"' in html
    assert ">correction of session #3, step 2 (terminal)</a>" in html
    assert ">correction #9</a>" in html  # deleted since: still linked, the page says so
    assert "recording=rec%3Cx%3E" in html and ">recording rec&lt;x&gt;, turn 1</a>" in html
    assert "<x>" not in html


def test_the_annotate_header_names_them_too() -> None:
    item = QueueItem(
        prediction_id=1,
        step_id=1,
        session_id=1,
        step_index=0,
        domain="terminal",
        engine="fake",
        model="m",
        action="[]",
        previous_observation=None,
        real_observation=None,
        predicted_observation="$ ",
        reasoning="",
        grounded_by=["swe-agent/rock#2"],
    )
    assert "grounded</b> by 1 real step<" in header(Draft(item, "$ ", {}))
    assert "recording swe-agent/rock, turn 2</a>" in header(Draft(item, "$ ", {}))
    plain = replace(item, grounded_by=[])
    assert "grounded" not in header(Draft(plain, "$ ", {}))


def stored(*grounded_by: list[str]) -> StoredSession:
    """A swe session whose steps' predictions were grounded by `grounded_by`, one list a step."""
    made = datetime(2026, 12, 3, tzinfo=UTC)
    steps = [
        StoredStep(
            step_id=i,
            session_id=1,
            index=i,
            action="ls",
            real_observation=None,
            origin=None,
            predictions=[
                StoredPrediction(
                    prediction_id=i,
                    prediction=fake_prediction("$ ").model_copy(update={"grounded_by": refs}),
                    params={},
                    history_mode="teacher_forced",
                    scores=[],
                    created_at=made,
                )
            ],
        )
        for i, refs in enumerate(grounded_by)
    ]
    return StoredSession(
        id=1,
        domain="swe",
        kind="playground",
        engine="fake",
        model="m",
        params={},
        history_mode=HistoryMode.TEACHER_FORCED,
        system_prompt=None,
        context=PromptContext(),
        initial_state="$ ",
        task="",
        owner=None,
        base_trajectory_id=None,
        parent_session_id=None,
        branched_at=None,
        bench_run_id=None,
        created_at=made,
        steps=steps,
    )


def test_a_stored_session_names_each_correction_by_its_place() -> None:
    """The shown steps' corrections are gathered for one lookup; each status names its own."""
    session = stored(["annotation:4"], ["annotation:5", "rec#1"], ["annotation:6"])
    assert correction_ids(grounding_refs(session, shown_steps(session, limit=2))) == [5, 6]
    places = {5: CorrectionPlace(5, 12, 2, "terminal"), 6: CorrectionPlace(6, 9, 0, "os")}
    html = session_html(session, limit=2, places=places)
    assert ">correction of session #12, step 3 (terminal)</a>" in html
    assert ">correction of session #9, step 1 (os)</a>" in html
    assert "annotation=4" not in html  # the first step is not shown
    assert ">correction #6</a>" in session_html(session)  # no place known: still linked
