"""Playground, Replay and Annotate say how many real steps grounded a prediction, each linked."""

from __future__ import annotations

from dataclasses import replace

from storage.annotations.types import CorrectionPlace, QueueItem
from tests.support.postgres import fake_prediction
from ui.annotate import Draft
from ui.pages.annotate_view import header
from ui.provenance import correction_ids, grounding_html
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
    html = grounding_html(refs, {7: CorrectionPlace(7, 3, 1)})
    assert '<a href="?tab=sessions&amp;annotation=7"' in html
    assert ">session #3, step 2 (correction #7)</a>" in html
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
