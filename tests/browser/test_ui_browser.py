"""A person in Chromium: simulate, compare with reality, correct, submit, export; safe HTML."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser.pages import (
    choose,
    open_app,
    open_tab,
    rate,
    start_blank,
    step,
    wait_for_text,
)

pytestmark = pytest.mark.browser

CORRECTED = "RootWebArea 'Click Checkboxes Task', focused\n\t[18] checkbox 'SQkB', checked='true'"
HOSTILE_PAGE = (
    "<html><body><h1 id='title'>Hello from the page</h1>"
    "<script>window.top.pwned = 1; document.body.setAttribute('data-pwned', '1');</script>"
    "<img src='x' onerror=\"window.top.pwned = 2\"></body></html>"
)


def test_person_simulates_corrects_submits_and_exports(page, app, shot):
    open_app(page, app.url)
    choose(page, "pg-domain", "Web browser")
    wait_for_text(page, "#pg-action textarea", "click(")
    page.locator("#pg-action textarea").fill("")
    page.locator("#pg-action textarea").type("click('18')")
    wait_for_text(page, "#pg-check", "valid action")
    step(page)
    predicted, real = page.locator("#pg-predicted"), page.locator("#pg-real")
    left, right = predicted.bounding_box(), real.bounding_box()
    assert left["x"] + left["width"] <= right["x"] and abs(left["y"] - right["y"]) < 5
    assert "checked='true'" in real.inner_text().replace("\u200b", "")
    shot(page, "playground")

    open_tab(page, "Annotate")
    page.locator("#an-next").click()
    wait_for_text(page, "#an-header", "prediction")
    page.locator("#an-editor .cm-content").fill(CORRECTED)
    wait_for_text(page, "#an-diff", "Your correction")
    rate(
        page, {"format": "4", "factuality": "2", "consistency": "3", "realism": "3", "quality": "2"}
    )
    page.locator("#an-verdict label", has_text="reject").click()
    shot(page, "annotate")
    page.locator("#an-editor .cm-content").click()
    page.keyboard.press("Control+Enter")  # the submit shortcut
    wait_for_text(page, "#an-message", "Saved version 1")

    open_tab(page, "Export")
    choose(page, "ex-format", "dpo")
    page.locator("#ex-preview").click()
    wait_for_text(page, "#ex-count", "rows match")
    page.locator("#ex-write").click()
    wait_for_text(page, "#ex-count", "Wrote")
    with page.expect_download() as download:
        page.locator("#ex-file a").first.click()
    rows = [json.loads(line) for line in Path(download.value.path()).read_text().splitlines()]
    assert rows and "[18] checkbox 'SQkB', checked='true'" in rows[-1]["chosen"][-1]["content"]
    shot(page, "export")


def test_bad_action_is_explained_and_not_sent(page, app):
    open_app(page, app.url)
    page.locator("#pg-action textarea").fill("rm -rf /")
    wait_for_text(page, "#pg-check", "not valid JSON")
    assert page.locator("#pg-step").is_disabled()


def test_html_observation_is_sandboxed_and_its_script_never_runs(page, app, shot):
    open_app(page, app.url)
    start_blank(page, "Web browser", HOSTILE_PAGE)
    frame = page.locator("#pg-before iframe")
    frame.wait_for(state="visible")
    assert frame.get_attribute("sandbox") == ""
    inner = page.frame_locator("#pg-before iframe")
    assert inner.locator("#title").inner_text() == "Hello from the page"  # rendered, inert
    assert inner.locator("body").get_attribute("data-pwned") is None
    assert page.evaluate("() => window.pwned === undefined")
    assert "<script>" in page.locator("#pg-before .awp-source").inner_text()  # source beside
    shot(page, "html-sandbox")


def test_screenshots_of_replay_and_benchmark(page, app, shot):
    open_app(page, app.url)
    open_tab(page, "Replay")
    choose(page, "rp-domain", "Android")
    choose(page, "rp-trajectory", "android/")
    wait_for_text(page, "#rp-info", "turns")
    page.locator("#rp-run").click()
    wait_for_text(page, "#rp-status", "finish")
    shot(page, "replay")
    open_tab(page, "Benchmark")
    page.locator("#bm-run").click()
    wait_for_text(page, "#bm-status", "Finished", timeout_ms=120_000)
    shot(page, "benchmark")
