"""The Annotate page in Chromium: context, rules, the saved banner, a refused Open, two browsers."""

from __future__ import annotations

import re

import pytest
from gradio_client import Client

from tests.browser.pages import choose, open_app, open_tab, rate, wait_for_text
from tests.support.app_server import named
from tests.support.postgres import fake_prediction
from tests.support.sessions import SessionWriter

pytestmark = pytest.mark.browser

FIVE = {"format": "4", "factuality": "2", "consistency": "3", "realism": "3", "quality": "2"}


def header_id(page) -> int:
    text = page.locator("#an-header").inner_text()
    return int(re.search(r"prediction #(\d+)", text).group(1))


def test_annotator_reads_the_context_is_held_to_the_rules_and_sees_what_was_saved(page, app, shot):
    api = Client(app.url, verbose=False)
    loaded = named(api.predict("terminal", "mkrww/errors", 2, api_name="/load_turn"))
    api.predict(loaded["action"], engine="persistence", api_name="/step")

    open_app(page, app.url)
    open_tab(page, "Annotate")
    choose(page, "an-domain", "Terminal")
    page.locator("#an-next").click()
    wait_for_text(page, "#an-header", "prediction #")
    assert "source" in page.locator("#an-real-origin").inner_text()
    assert page.locator("#an-use-real").is_visible()
    boxes = [page.locator(f"#an-rate-{name}").bounding_box() for name in FIVE]
    assert max(b["y"] for b in boxes) - min(b["y"] for b in boxes) < 5  # one row
    shot(page, "annotate-item")

    page.locator("#an-context-box").get_by_text("What the model saw").click()
    wait_for_text(page, "#an-context", "Turn 2")
    page.locator("#an-context summary").first.click()  # the system prompt, folded apart
    assert "observation shown (teacher_forced)" in page.locator("#an-context").inner_text().lower()
    page.locator("#an-reasoning-box").get_by_text("Model reasoning").click()
    page.locator("#an-context").scroll_into_view_if_needed()
    shot(page, "annotate-context")

    page.locator("#an-submit").click()
    wait_for_text(page, "#an-message", "Not saved: no verdict")
    page.locator("#an-editor .cm-content").fill("an edit")
    page.locator("#an-verdict label", has_text="Accept").click()
    page.locator("#an-submit").click()
    wait_for_text(page, "#an-message", "accept means the prediction is right as it stands")
    assert page.locator("#an-editor .cm-content").inner_text() == "an edit"  # kept as typed
    shot(page, "annotate-refused-submit")

    header_before = page.locator("#an-header").inner_html()
    page.locator("#an-prediction input").fill("99999")
    page.locator("#an-open").click()
    wait_for_text(page, "#an-open-note", "Prediction 99999 does not exist")
    assert page.locator("#an-header").inner_html() == header_before
    assert page.locator(".error").count() == 0  # no error badge on every output
    assert page.locator("#an-editor .cm-content").inner_text() == "an edit"
    shot(page, "annotate-refused-open")

    page.locator("#an-use-real").click()
    wait_for_text(page, "#an-editor .cm-content", "ZeroDivisionError")
    page.keyboard.press("Alt+c")  # the cannot-tell shortcut picks that verdict
    assert page.locator("#an-verdict input[value='cannot_tell']").is_checked()
    page.locator("#an-verdict label", has_text="Reject").click()
    rate(page, FIVE)
    page.locator("#an-submit").click()
    wait_for_text(page, "#an-message", "Saved version 1")
    banner = page.locator("#an-message .an-saved")
    assert re.search(r"prediction #\d+: reject\.", banner.inner_text())
    assert "rgb(220, 252, 231)" in banner.evaluate("el => getComputedStyle(el).backgroundColor")
    shot(page, "annotate-saved")


def test_two_anonymous_browsers_get_their_own_items_and_keep_them_on_reload(browser, app, shot):
    writer = SessionWriter(app.context.sessions, domain="os")
    tree = "[1] desktop 'Desktop'\n\t[2] push-button 'Files'"
    for i in range(2):
        writer.add(f"click('{i}')", None, None, fake_prediction(f"{tree} {i}"))
    # Two people, two addresses: an anonymous identity is the server's signature of the
    # address (a browser cannot choose it), and uvicorn believes a loopback proxy's header.
    contexts = [
        browser.new_context(
            viewport={"width": 1440, "height": 1000},
            extra_http_headers={"X-Forwarded-For": f"192.0.2.{n + 1}"},
        )
        for n in range(2)
    ]
    try:
        tabs = [context.new_page() for context in contexts]
        shown = []
        for tab in tabs:
            tab.set_default_timeout(30_000)
            open_app(tab, app.url)
            open_tab(tab, "Annotate")
            choose(tab, "an-domain", "Desktop")
            tab.locator("#an-next").click()
            wait_for_text(tab, "#an-header", "prediction #")
            shown.append(header_id(tab))
        assert shown[0] != shown[1]
        assert "Unknown: nobody recorded" in tabs[0].locator("#an-real-origin").inner_text()
        assert not tabs[0].locator("#an-use-real").is_visible()
        tabs[0].reload()
        open_tab(tabs[0], "Annotate")
        choose(tabs[0], "an-domain", "Desktop")
        tabs[0].locator("#an-next").click()
        wait_for_text(tabs[0], "#an-header", "prediction #")
        assert header_id(tabs[0]) == shown[0]  # the same browser is the same annotator
        tabs[1].locator("#an-next").click()
        wait_for_text(tabs[1], "#an-header", f"prediction #{shown[1]}")
        shot(tabs[1], "annotate-second-browser")
    finally:
        for context in contexts:
            context.close()
