"""Live environments in the browser: a live terminal and a live web page beside the prediction."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from gradio_client import Client

from tests.browser.pages import choose, open_app, step, wait_for_text
from tests.support.app_server import RunningApp, start_app
from tests.support.live import skip_unless_live

pytestmark = [pytest.mark.browser, skip_unless_live("terminal")]


@pytest.fixture(scope="module")
def live_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(tmp_path_factory.mktemp("live-browser"), settings={"live_max": 1})
    yield running
    running.close()


def start_live(page, domain: str, task: str) -> None:
    choose(page, "pg-domain", domain)
    page.locator("#pg-source label", has_text="Live environment").click()
    choose(page, "pg-live-task", task)
    page.locator("#pg-live-start").click()
    wait_for_text(page, "#pg-status", "environment started", 60_000)


def act(page, action: str) -> None:
    page.locator("#pg-action textarea").fill(action)
    wait_for_text(page, "#pg-check", "valid action")
    step(page)


def test_a_live_terminal_step_beside_the_prediction(browser, live_app: RunningApp, shot):
    context = browser.new_context(viewport={"width": 1440, "height": 1100})
    page = context.new_page()
    try:
        open_app(page, live_app.url)
        start_live(page, "Terminal", "shell")
        act(page, '[{"keystrokes": "echo live-terminal && ls -la /\\n", "duration": 0.8}]')
        real = page.locator("#pg-real").inner_text()
        assert "Real (live) after step 1" in real and "live-terminal" in real
        assert "live reward none" in page.locator("#pg-status .awp-live").inner_text()
        assert page.locator("#pg-screenshot img").count() == 0  # a shell has no picture
        shot(page, "live-terminal")
    finally:
        context.close()
    # Closing the tab closes its live environment: the only place is free again.
    deadline = time.monotonic() + 30
    while True:
        try:
            Client(live_app.url, verbose=False).predict("terminal", "shell", api_name="/start_live")
            break
        except Exception:
            assert time.monotonic() < deadline, "the closed tab kept its live environment"
            time.sleep(1)


@skip_unless_live("web")
def test_a_live_web_step_beside_the_prediction(page, app: RunningApp, shot):
    page.set_viewport_size({"width": 1440, "height": 1100})
    open_app(page, app.url)
    start_live(page, "Web browser", "miniwob.click-button")  # a random instance
    # The page is pictured from the start, beside the tree it will be compared with.
    assert "The live page at the start" in page.locator("#pg-screenshot").inner_text()
    page.get_by_text("State before the step").click()
    before = page.locator("#pg-before").inner_text()
    assert "RootWebArea Click Button Task" in before
    # The instance is random: the task names the button to click, the tree its bid.
    wanted = re.search(r'Click on the "(.+?)" button', page.locator("#pg-status").inner_text())
    assert wanted, page.locator("#pg-status").inner_text()
    found = re.search(rf"\[(\d+)\] button {re.escape(wanted.group(1))}(\s|$)", before)
    assert found, (wanted.group(1), before)
    button = found.group(1)
    act(page, f"click('{button}')")
    assert "Real (live) after step 1" in page.locator("#pg-real").inner_text()
    # The closure: MiniWoB's reward and the end of the episode, and the page as a picture.
    live = page.locator("#pg-status .awp-live").inner_text()
    assert "live reward 1" in live and "episode done" in live, live
    picture = page.locator("#pg-screenshot img")
    assert "after step 1" in (picture.get_attribute("alt") or "")
    size = picture.evaluate("img => [img.naturalWidth, img.naturalHeight]")
    assert size == [332, 214], size  # MiniWoB's viewport, drawn
    shot(page, "live-web")
