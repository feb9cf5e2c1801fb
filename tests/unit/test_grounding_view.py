"""Playground, Replay and Annotate say how many real steps grounded a prediction."""

from __future__ import annotations

from dataclasses import replace

from storage.annotations.types import QueueItem
from tests.support.postgres import fake_prediction
from ui.annotate import Draft
from ui.pages.annotate_view import header
from ui.views import status_html


def test_a_grounded_prediction_names_its_real_steps() -> None:
    grounded = fake_prediction("$ ").model_copy(
        update={"grounded_by": ["swe-agent/rock#2", "annotation:<7>"]}
    )
    html = status_html(grounded)
    assert "grounded</b> by 2 real steps" in html
    assert 'title="swe-agent/rock#2\nannotation:&lt;7&gt;"' in html
    assert "grounded" not in status_html(fake_prediction("$ "))


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
    plain = replace(item, grounded_by=[])
    assert "grounded" not in header(Draft(plain, "$ ", {}))
