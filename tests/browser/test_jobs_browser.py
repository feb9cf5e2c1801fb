"""A job in Chromium: many futures run as a job with a progress line, and a `?job=` link reopens
it after a reload with its result. The screenshot goes to tests/artifacts/jobs-*.png.
"""

from __future__ import annotations

import re

import pytest

from tests.browser.pages import open_tab, wait_for_text

pytestmark = pytest.mark.browser


def test_futures_run_as_a_job_that_a_reloaded_page_reopens(page, app, shot):
    page.goto(app.url)
    open_tab(page, "Playground")
    page.locator("#pg-step").wait_for(state="visible")
    page.locator("#fu-box").click()
    page.locator("#fu-run").click()
    wait_for_text(page, "#fu-job", "done in")
    assert page.locator("#fu-grid").inner_text().count("prediction #") == 4
    shot(page, "jobs-futures-done")
    [job] = app.context.jobs.listed()
    assert re.fullmatch(r"[0-9a-f]{12}", job.id)
    # A fresh page (a reload, or the link sent to oneself) reopens the job where it started.
    page.goto(f"{app.url}?job={job.id}")
    page.locator("#pg-step").wait_for(state="visible")  # the link opened the Playground
    page.locator("#fu-box").click()  # the section starts folded, as on any visit
    wait_for_text(page, "#fu-job", "4 futures of one action: done in")
    wait_for_text(page, "#fu-grid", "prediction #")  # the next poll shows the result
    assert page.locator("#fu-grid").inner_text().count("prediction #") == 4
    shot(page, "jobs-futures-reopened")
