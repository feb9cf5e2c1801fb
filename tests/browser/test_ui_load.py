"""Measurements with the embedded model: page load, click-to-first-token, 10 concurrent users.

Slow (a real model generates on CPU); the numbers go to tests/artifacts/timings.json. The
embedded engine runs one generation at a time (the simulate queue has concurrency 1), so the
ten sessions are served in turn and each shows its place in the queue meanwhile.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.conftest import ARTIFACTS, VIEWPORT
from tests.browser.pages import open_app
from tests.support.app_server import RunningApp, start_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PREPARED = Path(os.environ.get("AWP_DATA_DIR", Path.home() / ".agentworld")) / "models"
USERS = 10
TOKENS = 16
STEP_TIMEOUT_MS = 600_000
FIRST_TOKEN_JS = """
() => new Promise((resolve) => {
  const pane = document.querySelector('#pg-predicted');
  const start = performance.now();
  const seen = () => {
    const text = (pane.querySelector('.awp-obs pre')?.innerText || '').trim();
    return text !== '' && text !== '…';
  };
  new MutationObserver((_, observer) => {
    if (seen()) { observer.disconnect(); resolve(performance.now() - start); }
  }).observe(pane, {childList: true, subtree: true, characterData: true});
  document.querySelector('#pg-step').click();
})
"""


@pytest.fixture(scope="module")
def embedded_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    if not (PREPARED / "smollm2-135m-instruct").is_dir():
        pytest.skip("the embedded model is not prepared (run `awp model prepare`)")
    data = tmp_path_factory.mktemp("embedded")
    (data / "models").symlink_to(PREPARED, target_is_directory=True)
    running = start_app(data, engine="transformers", settings={"max_new_tokens": TOKENS})
    yield running
    running.close()


def record(name: str, value: object) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / "timings.json"
    timings = json.loads(path.read_text()) if path.is_file() else {}
    timings[name] = value
    path.write_text(json.dumps(timings, indent=2))


def test_page_load_and_first_token(browser, embedded_app):
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(STEP_TIMEOUT_MS)
    loads = [open_app(page, embedded_app.url) for _ in range(3)]
    first = page.evaluate(FIRST_TOKEN_JS) / 1000  # cold: the model loads on first use
    page.wait_for_function("document.querySelector('#pg-status').innerText.includes('Stored')")
    open_app(page, embedded_app.url)
    warm = page.evaluate(FIRST_TOKEN_JS) / 1000
    page.wait_for_function("document.querySelector('#pg-status').innerText.includes('Stored')")
    context.close()
    record("page_load_s", {"runs": loads, "median": statistics.median(loads)})
    record("first_token_s", {"cold": first, "warm": warm})
    assert statistics.median(loads) < 10


def test_ten_concurrent_sessions_are_all_served(browser, embedded_app):
    contexts = [browser.new_context(viewport=VIEWPORT) for _ in range(USERS)]
    pages = [context.new_page() for context in contexts]
    for page in pages:
        page.set_default_timeout(STEP_TIMEOUT_MS)
        open_app(page, embedded_app.url)
    started = time.perf_counter()
    for page in pages:
        page.locator("#pg-step").click()
    last = pages[-1].locator("#pg-predicted")
    last.get_by_text("queue", exact=False).first.wait_for()
    queued = last.inner_text()
    done = []
    for page in pages:
        page.wait_for_function(
            "document.querySelector('#pg-status').innerText.includes('Stored as prediction')"
        )
        done.append(time.perf_counter() - started)
    for context in contexts:
        context.close()
    record("ten_sessions_s", {"finished_after": sorted(done), "tokens_per_step": TOKENS,
                              "last_tab_showed": queued})  # fmt: skip
    assert len(done) == USERS and "queue" in queued
