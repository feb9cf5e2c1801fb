"""The Train page: an admin starts a tiny run, watches it finish, and serves its model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.pages import open_app, open_tab
from tests.support.app_server import RunningApp, start_app

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def tiny_app(
    tmp_path_factory: pytest.TempPathFactory, tiny_model_dir: Path
) -> Iterator[RunningApp]:
    settings = {"model": str(tiny_model_dir)}
    running = start_app(tmp_path_factory.mktemp("train"), "transformers", settings)
    yield running
    running.close()


def test_an_admin_trains_and_serves_the_result(browser, tiny_app: RunningApp, shot) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 1100})
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        open_app(page, tiny_app.url)
        page.get_by_text("role: admin").wait_for()
        open_tab(page, "Train")
        page.locator("#tr-steps input").fill("1")
        page.locator("#tr-eval-limit input").fill("2")
        page.locator("#tr-eval-tokens input").fill("4")
        page.locator("#tr-start").click()
        page.locator("#tr-note").get_by_text("Started sft on recorded").wait_for()
        report = page.locator("#tr-report")
        report.get_by_text("finished").wait_for(timeout=240_000)
        assert "macro" in report.inner_text() and "persistence" in report.inner_text()
        assert "finished" in page.locator("#tr-runs").inner_text()
        page.locator("#tr-use").click()
        page.locator("#tr-note").get_by_text("now uses run #1").wait_for()
        shot(page, "train-page")
    finally:
        context.close()
