"""A grounded prediction and a hybrid swe step, as a person sees them in the Playground."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.browser.pages import choose, open_app, start_blank, step, wait_for_text
from tests.support.app_server import RunningApp, start_app
from tests.support.live import skip_unless_live

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def live_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(tmp_path_factory.mktemp("hybrid-browser"), settings={"live_max": 1})
    yield running
    running.close()


def persistence(page) -> None:
    page.locator("#pg-engine-panel").get_by_text("Engine and sampling").click()
    choose(page, "pg-engine", "persistence")


def test_a_grounded_prediction_names_its_real_steps(page, app: RunningApp, shot) -> None:
    page.set_viewport_size({"width": 1440, "height": 1100})
    open_app(page, app.url)
    start_blank(page, "Terminal", "user@host:~$ ")
    persistence(page)
    page.locator("#pg-action textarea").fill(
        json.dumps([{"keystrokes": "ls -la\n", "duration": 0.5}])
    )
    wait_for_text(page, "#pg-check", "valid action")
    step(page)
    status = page.locator("#pg-status")
    assert "grounded by 4 real steps" in status.inner_text()
    sources = status.locator(".awp-chip[title]").first.get_attribute("title") or ""
    assert sources.count("#") == 4  # four `<recording>#<turn>` ids in the tooltip
    shot(page, "grounded-prediction")


@skip_unless_live("swe")
def test_a_hybrid_swe_step_says_who_answered(browser, live_app: RunningApp, shot) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 1200})
    page = context.new_page()
    try:
        open_app(page, live_app.url)
        choose(page, "pg-domain", "Software engineering")
        page.locator("#pg-source label", has_text="Live environment").click()
        choose(page, "pg-live-task", "romans")
        page.locator("#pg-live-hybrid input").check()
        page.locator("#pg-live-start").click()
        wait_for_text(page, "#pg-status", "Hybrid", 60_000)
        persistence(page)
        edit = {
            "name": "str_replace_editor",
            "arguments": {"command": "view", "path": "/testbed/romans/numerals.py"},
        }
        page.locator("#pg-action textarea").fill(json.dumps(edit))
        wait_for_text(page, "#pg-check", "valid action")
        step(page)
        assert "answered by executor" in page.locator("#pg-status").inner_text()
        assert "Answered exactly (executor)" in page.locator("#pg-predicted").inner_text()
        shot(page, "hybrid-swe-editor-step")
        tests = {"name": "bash", "arguments": {"command": "python -m pytest -q"}}
        page.locator("#pg-action textarea").fill(json.dumps(tests))
        wait_for_text(page, "#pg-check", "valid action")
        step(page)
        wait_for_text(page, "#pg-status", "step 2 of session")
        status = page.locator("#pg-status").inner_text()
        assert "answered by" not in status and "persistence" in status
        assert "Not run live" in page.locator("#pg-real").inner_text()
        shot(page, "hybrid-swe-bash-step")
    finally:
        context.close()
