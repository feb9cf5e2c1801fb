"""A Playground step as a job in Chromium: its line counts tokens of at most the output budget,
a reloaded page reopens it with a `?job=` link, Cancel stops it, and the engine serves the next
step at once. Screenshots go to tests/artifacts/step-job-*.png.

The engine is the real transformers engine on the tiny random model, which never says
end-of-sequence: a step decodes its whole budget, so it is still running when the page reloads
and when Cancel is pressed.
"""

from __future__ import annotations

import pytest

from backend.jobs import JobStatus
from tests.browser.pages import MODEL_WAIT_MS, open_app, wait_for_text

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BUDGET = 20_000
"""Tokens a step may decode (all of them: the tiny model never stops): it runs for minutes."""


def test_a_step_job_shows_progress_reopens_after_a_reload_and_cancels(tab, model_app, shot):
    open_app(tab, model_app.url)
    tab.locator("#pg-step").click()
    wait_for_text(tab, "#pg-job", f"of at most {BUDGET:,} tokens", MODEL_WAIT_MS)  # it decodes
    # With an upper-bound estimate from its rate.
    wait_for_text(tab, "#pg-job", "left", MODEL_WAIT_MS)
    line = tab.locator("#pg-job").inner_text()
    assert "at most" in line and "reopen" in line, line
    assert tab.locator("#pg-cancel").is_visible()
    shot(tab, "step-job-running")
    [job] = model_app.context.jobs.listed()
    assert job.kind == "step" and job.status is JobStatus.RUNNING and job.budget

    # A reload (here: the line's own link) reopens the running step where it was started.
    tab.goto(f"{model_app.url}?job={job.id}")
    wait_for_text(tab, "#pg-job", f"of at most {BUDGET:,} tokens", MODEL_WAIT_MS)
    wait_for_text(tab, "#pg-predicted", "Predicted after step", MODEL_WAIT_MS)  # its text so far
    assert model_app.context.jobs.get(job.id).view().status is JobStatus.RUNNING
    shot(tab, "step-job-reopened")

    tab.locator("#pg-cancel").click()
    wait_for_text(tab, "#pg-job", "cancelled after", MODEL_WAIT_MS)
    assert "the engine is free" in tab.locator("#pg-job").inner_text()
    wait_for_text(tab, "#pg-status", "You cancelled it")  # its streamed text is gone
    assert "Nothing was stored" in tab.locator("#pg-status").inner_text()
    assert not tab.locator("#pg-cancel").is_visible()
    ended = model_app.context.jobs.get(job.id).view()
    assert ended.status is JobStatus.CANCELLED and 0 < ended.done < BUDGET  # stopped mid-way
    assert not model_app.context.sessions.list_sessions()  # the cancelled step stored nothing
    shot(tab, "step-job-cancelled")

    # The engine is free: the next step (a short one) runs at once and is stored.
    tab.locator("#pg-engine-panel").click()
    tab.get_by_label("Max new tokens").fill("4")
    tab.locator("#pg-step").click()
    wait_for_text(tab, "#pg-status", "Stored as prediction", MODEL_WAIT_MS)
    wait_for_text(tab, "#pg-job", "done in", MODEL_WAIT_MS)
    shot(tab, "step-job-then-step")
