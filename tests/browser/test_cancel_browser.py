"""Cancel a benchmark and a rollout in Chromium: each run stops, is recorded as interrupted,
and the engine it held serves the next Playground step. Screenshots go to
tests/artifacts/jobs-bench-*.png and jobs-rollout-*.png.

The engine is the real transformers engine on the tiny random model, which never says
end-of-sequence: each chunk of eight items decodes its whole token budget, so the run is still
going when Cancel is pressed.
"""

from __future__ import annotations

import pytest

from storage.models import RunStatus
from storage.run_kinds import BenchRun, RolloutRun
from tests.browser.pages import MODEL_WAIT_MS, open_app, open_tab, wait_for_text

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ITEMS = 24
"""Three chunks of eight: the first one finishing shows items counted before Cancel."""
BUDGET = 64
"""Tokens a prediction decodes (all of them: the tiny model never stops): a chunk takes a while."""


def test_a_cancelled_benchmark_frees_the_engine_for_a_playground_step(tab, model_app, shot):
    open_app(tab, model_app.url)
    open_tab(tab, "Benchmark")
    engines = tab.locator("#bm-engines")
    while engines.locator("input:checked").count():  # the baselines are ticked by default
        engines.locator("input:checked").first.uncheck()
    engines.get_by_label("transformers", exact=True).check()
    tab.get_by_label("Items (first N; 0 for all)").fill(str(ITEMS))
    tab.locator("#bm-run").click()
    wait_for_text(tab, "#bm-job", f"of {ITEMS} items")
    # The first chunk is counted.
    wait_for_text(tab, "#bm-job", f"8 of {ITEMS} items", MODEL_WAIT_MS)
    assert "left" in tab.locator("#bm-job").inner_text()  # with an estimate from its rate
    shot(tab, "jobs-bench-running")
    tab.locator("#bm-cancel").click()
    wait_for_text(tab, "#bm-job", "cancelled after", MODEL_WAIT_MS)
    assert "the engine is free" in tab.locator("#bm-job").inner_text()
    assert not tab.locator("#bm-cancel").is_visible()
    wait_for_text(tab, "#bm-past", "interrupted")  # the runs list shows how it ended
    headers = " ".join(tab.locator("#bm-results th").all_inner_texts())
    assert "engine" in headers and "Overall macro" in headers, headers  # not Gradio's "1 2 3"
    shot(tab, "jobs-bench-cancelled")

    [run] = model_app.context.runs.list_runs(BenchRun)
    assert run.status == RunStatus.INTERRUPTED.value
    assert run.message is not None and run.message.startswith("Cancelled; `awp bench --resume")
    assert 8 <= run.done < ITEMS  # the chunks done before Cancel stay counted
    [job] = model_app.context.jobs.listed()
    assert job.status == "cancelled" and job.done == run.done

    # The engine the benchmark held is free: a Playground step on it completes and is stored.
    open_tab(tab, "Playground")
    tab.locator("#pg-step").click()
    wait_for_text(tab, "#pg-status", "Stored as prediction", MODEL_WAIT_MS)
    shot(tab, "jobs-bench-then-step")


def test_a_cancelled_rollout_stops_between_steps_and_is_recorded_interrupted(tab, model_app, shot):
    open_app(tab, model_app.url)
    open_tab(tab, "Rollouts")  # the replay agent in the transformers world model, 2 x 5 steps
    tab.locator("#ro-run").click()
    wait_for_text(tab, "#ro-job", "of at most 10 steps", MODEL_WAIT_MS)
    wait_for_text(tab, "#ro-job", "2 of at most 10 steps", MODEL_WAIT_MS)  # both episodes stepped
    tab.locator("#ro-cancel").click()
    wait_for_text(tab, "#ro-job", "cancelled after", MODEL_WAIT_MS)
    wait_for_text(tab, "#ro-past", "interrupted")
    shot(tab, "jobs-rollout-cancelled")
    [run] = model_app.context.runs.list_runs(RolloutRun)
    assert run.status == RunStatus.INTERRUPTED.value
    assert run.message == "Cancelled before it finished."
