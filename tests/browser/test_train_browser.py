"""The Train page: an admin starts a tiny run, watches it finish, and serves its model; a run is
a job that a reloaded page reopens and whose Cancel stops the trainer, recorded interrupted.
Screenshots go to tests/artifacts/train-*.png."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.models import RunStatus
from storage.run_kinds import TrainRun
from tests.browser.pages import open_app, open_tab, wait_for_text
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
        wait_for_text(page, "#tr-job", "Training sft on recorded")
        wait_for_text(page, "#tr-job", "Training sft on recorded: done in", 240_000)
        report = page.locator("#tr-report")
        report.get_by_text("finished").wait_for()
        assert "macro" in report.inner_text() and "persistence" in report.inner_text()
        assert "finished" in page.locator("#tr-runs").inner_text()
        page.locator("#tr-use").click()
        page.locator("#tr-note").get_by_text("now uses run #1").wait_for()
        shot(page, "train-page")
    finally:
        context.close()


STEPS = 500
"""Far more training steps than the test waits for: the run is still training at Cancel."""


def test_a_training_job_reopens_after_a_reload_and_cancel_stops_it(
    browser, tiny_app: RunningApp, shot
) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 1100})
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        open_app(page, tiny_app.url)
        open_tab(page, "Train")
        page.locator("#tr-steps input").fill(str(STEPS))
        page.locator("#tr-eval-limit input").fill("1")
        page.locator("#tr-eval-tokens input").fill("2")
        page.locator("#tr-start").click()
        # The held-out benchmark of the base model counts items, then training counts steps.
        wait_for_text(page, "#tr-job", "stage 2 of 3, training: ", 120_000)
        wait_for_text(page, "#tr-job", f" of {STEPS} training steps")
        job_id = page.locator("#tr-job [data-job]").get_attribute("data-job")
        # The link, in a fresh page (a reload, a new tab), reopens the job on the Train page.
        page.close()
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(f"{tiny_app.url.rstrip('/')}/?job={job_id}")
        wait_for_text(page, "#tr-job", f"of {STEPS} training steps", 60_000)
        # The reopened form shows the job's own settings, not the page's defaults.
        assert page.locator("#tr-steps input").input_value() == str(STEPS)
        assert page.locator("#tr-eval-limit input").input_value() == "1"
        assert page.locator("#tr-eval-tokens input").input_value() == "2"
        # Once a step is done, its rate gives the stage's ETA.
        wait_for_text(page, "#tr-job", "left in this stage", 300_000)
        assert "run #" in page.locator("#tr-job").inner_text()
        assert page.locator("#tr-cancel").is_visible()
        shot(page, "train-job-running")
        page.locator("#tr-cancel").click()
        wait_for_text(page, "#tr-job", "cancelled after", 300_000)  # after the step under way
        assert "the engine is free" in page.locator("#tr-job").inner_text()
        assert not page.locator("#tr-cancel").is_visible()
        wait_for_text(page, "#tr-runs", "interrupted")
        wait_for_text(page, "#tr-report", "Stopped: Cancelled")
        shot(page, "train-job-cancelled")
    finally:
        context.close()
    run = tiny_app.context.runs.list_runs(TrainRun)[0]
    assert run.status == RunStatus.INTERRUPTED.value and 1 <= run.done < STEPS
    assert run.message is not None and run.message.startswith("Cancelled; `awp train --resume")
    [view] = [job for job in tiny_app.context.jobs.listed() if job.id == job_id]
    assert view.status == "cancelled" and view.run_id == run.id
