"""A first-time visitor's walkthrough in Chromium: the Start page's demos, then every workspace.

Screenshots of each workspace go to tests/artifacts/workbench-*.png to be looked at.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from backend.envs.live.run import unavailable
from storage.run_kinds import BenchRun
from tests.browser.pages import open_tab, wait_for_text
from tests.support.app_server import RunningApp, start_app

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    """The app with baseline arena contenders, so a battle takes a second."""
    settings = {"arena_contenders": "persistence,oracle", "arena_bootstrap_rounds": 50}
    running = start_app(tmp_path_factory.mktemp("workbench-browser"), settings=settings)
    yield running
    running.close()


def test_a_visitor_walks_through_the_workbench(page, app, shot):
    page.goto(app.url)
    page.locator("#st-oracle").wait_for(state="visible")
    wait_for_text(page, "#st-next", "You are an annotator")
    shot(page, "workbench-start")

    # Demo 1: the oracle replays a terminal session, and its session opens from the link.
    page.locator("#st-oracle").click()
    wait_for_text(page, "#st-result", "The oracle replayed")
    if not unavailable("terminal"):
        page.locator("#st-shell").click()
        wait_for_text(page, "#st-result", "hello from a live shell", 60_000)
    shot(page, "workbench-start-demo")
    page.locator("#st-result a").first.click()
    wait_for_text(page, "#ss-view", "Session #")
    assert page.locator("#ss-view .awp-item").count() >= 1
    shot(page, "workbench-explore-sessions")

    open_tab(page, "Playground")
    page.locator("#pg-step").wait_for(state="visible")
    shot(page, "workbench-explore-playground")

    # Evaluate: the default selection (the baselines) finishes, and its items open.
    open_tab(page, "Benchmark")
    page.locator("#bm-run").click()
    wait_for_text(page, "#bm-status", "Finished", timeout_ms=120_000)
    shot(page, "workbench-evaluate-benchmark")
    run = app.context.runs.list_runs(BenchRun)[0]
    open_tab(page, "Runs")
    page.locator("#ru-id input").fill(str(run.id))
    page.locator("#ru-open").click()
    wait_for_text(page, "#ru-detail", f"Benchmark run {run.id}")
    # A deep link opens one item of the run: history, prediction, truth, diff, scores.
    session = app.context.sessions.list_sessions(bench_run_id=run.id, limit=1)[0]
    item = app.context.sessions.load_session(session.id).steps[-1].prediction.prediction_id
    page.goto(f"{app.url.rstrip('/')}/?run={run.id}&item={item}")
    wait_for_text(page, "#ru-item", f"Item {item}")
    assert "Predicted" in page.locator("#ru-item").inner_text()
    shot(page, "workbench-evaluate-runs")

    # Human feedback: an error shows beside its control and covers nothing.
    open_tab(page, "Which one is real?")
    assert page.locator("#rn-vote").is_disabled()  # nothing to vote on yet
    page.locator("#rn-next").click()
    wait_for_text(page, "#rn-context", "Action")
    page.locator("#rn-vote").click()
    wait_for_text(page, "#rn-message", "Pick A, B or can't tell")
    assert page.locator("#rn-choice label").first.is_visible()
    assert page.locator(".toast-body, .error").count() == 0  # no pill, no toast
    shot(page, "workbench-feedback-real")

    # The arena: one vote per battle, and the board stays.
    open_tab(page, "Arena")
    page.locator("#ar-battle").click()
    wait_for_text(page, "#ar-sides", "A")
    page.locator("#ar-vote-a").click()
    wait_for_text(page, "#ar-reveal", "You voted")
    assert page.locator("#ar-vote-b").is_disabled()
    shot(page, "workbench-feedback-arena")

    # The queue's filters: baselines and exact matches are shown on this baseline server.
    open_tab(page, "Annotate")
    page.locator("#an-filters").click()
    assert page.locator("#an-f-trivial input").is_checked()
    page.locator("#an-next").click()
    wait_for_text(page, "#an-header", "prediction")
    shot(page, "workbench-feedback-annotate")

    open_tab(page, "Export")
    page.locator("#ex-preview").click()
    wait_for_text(page, "#ex-count", "rows match")
    shot(page, "workbench-data-export")
