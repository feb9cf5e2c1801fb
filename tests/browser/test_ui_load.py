"""Several people at once on an in-process model: every step is served, the waiting see the queue.

An in-process engine generates one request at a time (`FairUse` gives it one place), so people
pressing Step together are served in turn, and the waiting read their place under the Step button.
Each tab is another visitor behind a reverse proxy (its own `X-Forwarded-For` address): one
address is one anonymous person, whose second step at once would be refused. The tiny test model
keeps this fast; timings with the embedded model belong to benchmarks/bench_ui.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.conftest import VIEWPORT
from tests.browser.pages import open_app, wait_for_text
from tests.support.app_server import RunningApp, start_app
from tests.support.status import session_of

pytestmark = pytest.mark.browser

USERS = 4


@pytest.fixture(scope="module")
def tiny_app(
    tmp_path_factory: pytest.TempPathFactory, tiny_model_dir: Path
) -> Iterator[RunningApp]:
    settings = {"model": str(tiny_model_dir), "max_new_tokens": 64, "trust_proxy": True}
    running = start_app(tmp_path_factory.mktemp("load"), engine="transformers", settings=settings)
    yield running
    running.close()


def test_concurrent_tabs_are_all_served_and_the_waiting_see_the_queue(browser, tiny_app):
    contexts = [
        browser.new_context(
            viewport=VIEWPORT, extra_http_headers={"X-Forwarded-For": f"10.0.0.{n}"}
        )
        for n in range(1, USERS + 1)
    ]
    pages = [context.new_page() for context in contexts]
    try:
        for page in pages:
            open_app(page, tiny_app.url)
        for page in pages:
            page.locator("#pg-step").click()
        # The last step job's line shows its place.
        wait_for_text(pages[-1], "#pg-job", "ahead of you", 60_000)
        for page in pages:
            # Four tiny-model steps decode one after another, on a CPU others share.
            wait_for_text(page, "#pg-status", "Stored as prediction", 120_000)
        statuses = [page.locator("#pg-status").inner_text() for page in pages]
    finally:
        for context in contexts:
            context.close()
    sessions = {session_of(status) for status in statuses}
    assert len(sessions) == USERS  # each tab stored its own session
