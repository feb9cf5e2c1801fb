"""A grounded prediction and a hybrid swe step, as a person sees them in the Playground."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from backend.verdicts import Verdict
from storage.annotations.types import AnnotationInput, Ratings
from tests.browser.pages import choose, open_app, start_blank, step, wait_for_text
from tests.support.app_server import RunningApp, start_app
from tests.support.live import skip_unless_live
from tests.support.postgres import fake_prediction
from tests.support.sessions import SessionWriter
from tests.support.status import session_of

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def live_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(tmp_path_factory.mktemp("hybrid-browser"), settings={"live_max": 1})
    yield running
    running.close()


def persistence(page) -> None:
    page.locator("#pg-engine-panel").get_by_text("Engine and sampling").click()
    choose(page, "pg-engine", "persistence")


def terminal_action(keystrokes: str) -> str:
    return json.dumps([{"keystrokes": keystrokes, "duration": 0.5}])


def follow(page, link):
    """Open a grounding link (it opens a new tab) and return that tab once its page loaded."""
    with page.context.expect_page() as opened:
        link.click()
    tab = opened.value
    tab.set_default_timeout(30_000)
    wait_for_text(tab, "#awp-user", "role:")
    return tab


def test_a_grounded_prediction_links_each_real_step_to_its_recording(
    page, app: RunningApp, shot
) -> None:
    page.set_viewport_size({"width": 1440, "height": 1100})
    open_app(page, app.url)
    start_blank(page, "Terminal", "user@host:~$ ")
    persistence(page)
    page.locator("#pg-action textarea").fill(terminal_action("ls -la\n"))
    wait_for_text(page, "#pg-check", "valid action")
    step(page)
    status = page.locator("#pg-status")
    assert "grounded by 4 real steps" in status.inner_text()
    status.locator(".awp-grounding summary").click()
    links = status.locator(".awp-grounding a")
    assert links.count() == 4
    assert all("recording " in text for text in links.all_inner_texts())
    shot(page, "grounded-prediction")

    link = links.first
    recording, _, turn = (link.get_attribute("data-ref") or "").rpartition("#")
    truth = app.context.trajectories.get(recording).turns[int(turn) - 1].observation or ""
    tab = follow(page, link)
    wait_for_text(tab, "#rp-info", recording)
    assert tab.locator("#rp-turn input[type=number]").input_value() == turn
    line = max(truth.splitlines(), key=len).strip()
    wait_for_text(tab, "#rp-real", line)
    shot(tab, "grounded-source-recording")  # waits until the page settled: nothing reset it
    assert recording in tab.locator("#rp-info").inner_text()
    assert tab.locator("#rp-turn input[type=number]").input_value() == turn
    assert line in tab.locator("#rp-real").inner_text()


def test_annotate_links_a_correction_that_grounded_the_prediction(
    page, app: RunningApp, shot
) -> None:
    action, corrected = terminal_action("cat provenance.txt\n"), "PROVENANCE: the corrected line"
    writer = SessionWriter(app.context.sessions, domain="terminal", initial_state="$ ")
    stored = writer.add(action, None, None, fake_prediction("cat: provenance.txt: no such file"))
    ratings = Ratings(
        **dict.fromkeys(("format", "factuality", "consistency", "realism", "quality"), 2)
    )
    note = app.context.annotations.submit(
        stored.prediction_id,
        "ann",
        AnnotationInput(verdict=Verdict.REJECT, corrected_observation=corrected, ratings=ratings),
        role="reviewer",  # a trusted correction grounds (`backend.trust`)
    )
    page.set_viewport_size({"width": 1440, "height": 1100})
    open_app(page, app.url)
    start_blank(page, "Terminal", "me@box:~$ ")
    persistence(page)
    page.locator("#pg-action textarea").fill(action)
    wait_for_text(page, "#pg-check", "valid action")
    step(page)
    status = page.locator("#pg-status").inner_text()
    prediction = re.search(r"Stored as prediction #(\d+)", status).group(1)
    played = session_of(status)

    page.goto(f"{app.url}?prediction={prediction}")
    wait_for_text(page, "#an-header", f"prediction #{prediction}")
    header = page.locator("#an-header")
    count = int(re.search(r"grounded by (\d+) real step", header.inner_text()).group(1))
    header.locator(".awp-grounding summary").click()
    links = header.locator(".awp-grounding a")
    assert links.count() == count >= 1
    place = f"correction of session #{writer.session_id}, step 1 (terminal)"
    correction = header.locator(".awp-grounding a", has_text=place)
    assert correction.count() == 1
    shot(page, "annotate-grounded-by")

    tab = follow(page, correction)
    wait_for_text(tab, "#ss-view", f"Correction #{note.annotation_id} by ann")
    assert corrected in tab.locator("#ss-view .awp-correction").inner_text()
    assert tab.locator("#ss-id input").input_value() == str(writer.session_id)
    shot(tab, "grounded-source-correction")

    # The stored session names it the same way.
    page.goto(f"{app.url}?tab=sessions&session={played}")
    wait_for_text(page, "#ss-view", f"Session #{played}")
    view = page.locator("#ss-view")
    view.locator(".awp-grounding summary").first.click()
    assert view.locator(".awp-grounding a", has_text=place).count() == 1


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
        status = page.locator("#pg-status").inner_text()
        assert "answered by the executor: a live executor:swe run" in status
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
