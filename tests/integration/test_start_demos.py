"""The Start demos say what they ran and where each side came from, through the real app.

Each demo's result shows its action, who answered the prediction side and the source of the
real side, all read from the stored provenance; the live-shell demo pressed again is answered
by the record of the first press's live run, and says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gradio_client import Client

from tests.support.app_server import RunningApp, start_app
from tests.support.live import skip_unless_live


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(Path(tmp_path_factory.mktemp("start-demos")))
    yield running
    running.close()


def test_the_oracle_demo_shows_its_action_and_both_sources(app: RunningApp) -> None:
    out = Client(app.url, verbose=False).predict(api_name="/demo_oracle")
    assert "awp-inline-error" not in out, out
    assert "Action: <code>" in out
    assert "predicted by oracle (baseline:oracle)" in out
    assert "recorded: the recording mkrww/git" in out  # the real side: the bundled recording


@skip_unless_live("terminal")
def test_a_repeat_of_the_live_shell_demo_says_the_record_answered(app: RunningApp) -> None:
    client = Client(app.url, verbose=False)
    first = client.predict(api_name="/demo_shell")
    assert "hello from a live shell" in first, first
    assert "predicted by persistence" in first
    assert "live: a live terminal run #live/terminal/" in first  # the real side
    again = client.predict(api_name="/demo_shell")
    assert "answered by the record of your earlier live run" in again, again
    assert "persistence predicted it" not in again
    stored = app.context.sessions.list_sessions(owner=None, limit=1)[0]
    last = app.context.sessions.load_session(stored.id).steps[-1].prediction
    assert last is not None and last.prediction.answered_by == "record"
