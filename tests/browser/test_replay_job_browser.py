"""Replay's "Run the whole recording" as a job in Chromium: its line counts turns, a reloaded
page reopens it on the Replay page with the run so far, and its Cancel stops it.
Screenshots go to tests/artifacts/replay-job-*.png.

The engine is the real transformers engine on the tiny random model, which never says
end-of-sequence: each turn decodes its whole budget, so the run is still going when the page
reloads and when Cancel is pressed.
"""

from __future__ import annotations

import pytest

from backend.jobs import JobStatus
from tests.browser.pages import MODEL_WAIT_MS, choose, open_app, open_tab, wait_for_text

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BUDGET = 1_500
"""Tokens each turn decodes (all of them: the tiny model never stops)."""


def test_a_replay_run_reopens_after_a_reload_and_cancels(tab, model_app, shot):
    longest = max(
        model_app.context.trajectories.list_trajectories("terminal"), key=lambda t: t.turns
    )
    open_app(tab, model_app.url)
    open_tab(tab, "Replay")
    choose(tab, "rp-domain", "Terminal")
    choose(tab, "rp-trajectory", longest.id)
    wait_for_text(tab, "#rp-info", f"{longest.turns} turns")
    tab.locator("#rp-run").click()
    wait_for_text(tab, "#rp-job", f"1 of {longest.turns} turns", MODEL_WAIT_MS)  # a turn is stored
    assert "reopen" in tab.locator("#rp-job").inner_text()
    assert tab.locator("#rp-cancel").is_visible()
    [job] = model_app.context.jobs.listed()
    assert job.kind == "replay" and job.status is JobStatus.RUNNING
    shot(tab, "replay-job-running")

    # A reload (here: the line's own link) reopens the run on the Replay page, the run so far.
    tab.goto(f"{model_app.url}?job={job.id}")
    wait_for_text(tab, "#rp-job", f"of {longest.turns} turns", MODEL_WAIT_MS)
    wait_for_text(tab, "#rp-info", longest.id, MODEL_WAIT_MS)
    wait_for_text(tab, "#rp-strip", "transformers", MODEL_WAIT_MS)
    wait_for_text(tab, "#rp-domain input", "Terminal", MODEL_WAIT_MS)  # its recording is picked
    assert model_app.context.jobs.get(job.id).view().status is JobStatus.RUNNING
    shot(tab, "replay-job-reopened")

    tab.locator("#rp-cancel").click()
    wait_for_text(tab, "#rp-job", "cancelled after", MODEL_WAIT_MS)
    assert "the engine is free" in tab.locator("#rp-job").inner_text()
    assert not tab.locator("#rp-cancel").is_visible()
    ended = model_app.context.jobs.get(job.id).view()
    assert ended.status is JobStatus.CANCELLED and 0 < ended.done < longest.turns
    shot(tab, "replay-job-cancelled")
