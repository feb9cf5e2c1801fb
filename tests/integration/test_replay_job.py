"""Replay's "Run the whole recording" is a job on the real transformers engine.

Its line counts the recording's turns as they are stored; Cancel stops it before its next turn
(and inside the engine, mid-decode), keeps the turns it stored on the page, and leaves the
engine free for the next step, which completes.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from gradio_client import Client

from backend.jobs import JobStatus
from tests.support.app_server import named, start_app

pytestmark = pytest.mark.slow

DEMO = "mkrww/errors"
WAIT_S = 600
TOKENS = 400
"""Each turn's output budget: the tiny random model never says end-of-sequence, so each turn
decodes it all, and the run is still going when the test cancels it."""


def test_a_replay_run_is_a_job_that_counts_turns_and_cancels(
    tiny_model_dir: Path, tmp_path: Path
) -> None:
    app = start_app(tmp_path, engine="transformers", settings={"model": str(tiny_model_dir)})
    try:
        person = Client(app.url, verbose=False)
        longest = max(app.context.trajectories.list_trajectories("terminal"), key=lambda t: t.turns)
        assert longest.turns >= 3
        person.predict("terminal", api_name="/replay_domain")
        person.predict(longest.id, api_name="/replay_load")
        running = person.submit(
            1,
            engine="transformers",
            history_mode="teacher_forced",
            max_new_tokens=TOKENS,
            api_name="/replay_run",
        )
        job = None
        for _ in range(WAIT_S * 10):  # until the run has stored its first turn
            listed = [v for v in app.context.jobs.listed() if v.kind == "replay"]
            job = app.context.jobs.get(listed[0].id) if listed else None
            if job is None:
                time.sleep(0.1)
            elif job.view().done or job.wait(0.1):
                break
        assert job is not None
        view = job.view()
        assert view.status is JobStatus.RUNNING and view.unit == "turns"
        assert view.total == longest.turns and 0 < view.done < longest.turns
        polled = person.predict(api_name="/replay_run_poll")
        line = next(value for value in polled if isinstance(value, str) and "data-job" in value)
        assert re.search(rf"\b\d+ of {longest.turns} turns · ", line), line
        assert f"?job={job.id}" in line  # a reload reopens it
        cancelled = person.predict(api_name="/replay_run_cancel")
        assert any("cancelling" in str(value) for value in cancelled), cancelled
        assert job.wait(WAIT_S)
        ended = job.view()
        assert ended.status is JobStatus.CANCELLED
        assert 0 < ended.done < longest.turns  # stopped before the recording's end
        outputs = running.result()
        strip = outputs[0]
        assert "transformers · teacher_forced" in strip  # the turns it stored stay shown
        [ended_line] = [value for value in outputs if "data-job" in str(value)]
        assert 'data-status="cancelled"' in ended_line and "the engine is free" in ended_line
        # The engine is free: a step on it completes with a stored prediction.
        out = named(person.predict("terminal", DEMO, 1, api_name="/load_turn"))
        step = named(person.predict(out["action"], max_new_tokens=8, api_name="/step"))
        assert "awp-inline-error" not in step["status"]
        assert step["position"] == out["position"] + 1
    finally:
        app.close()
