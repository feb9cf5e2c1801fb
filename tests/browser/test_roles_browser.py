"""What each role sees: the Data and training workspace (Export, Train) exists for admins only."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.browser.pages import open_app
from tests.support.app_server import RunningApp, start_app

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def annotator_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(tmp_path_factory.mktemp("roles"), anonymous_role="annotator")
    yield running
    running.close()


def test_annotators_do_not_see_the_export_tab(browser, annotator_app: RunningApp, shot):
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    try:
        open_app(page, annotator_app.url)
        page.get_by_text("role: annotator").wait_for()
        assert page.get_by_role("tab", name="Human feedback").is_visible()
        assert page.get_by_role("tab", name="Data and training").count() == 0
        assert page.get_by_role("tab", name="Export").count() == 0
        assert page.get_by_role("tab", name="Train").count() == 0
        shot(page, "roles-annotator")
    finally:
        context.close()


def test_admins_see_the_export_tab(page, app):
    open_app(page, app.url)
    page.get_by_text("role: admin").wait_for()
    assert page.get_by_role("tab", name="Data and training").is_visible()
