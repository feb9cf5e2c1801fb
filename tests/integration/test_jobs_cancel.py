"""Cancel a long job on the real transformers engine: it stops decoding and the engine is free.

The tiny random model never says end-of-sequence, so four futures of a 3,000-token budget would
hold the engine's lock for the whole budget; Cancel must end them mid-way, store nothing of
them, and leave the engine to the next step, which completes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gradio_client import Client
from sqlalchemy import func, select

from backend.jobs import JobStatus
from storage.db import session_scope
from storage.models import SessionKind, SessionRow
from tests.support.app_server import follow_job, named, start_app

pytestmark = pytest.mark.slow

DEMO = "mkrww/errors"
SAMPLES = "Sample K futures of the action above"
WAIT_S = 600


def sessions_of(app, kind: SessionKind) -> int:
    with session_scope(app.context.database.session_factory) as session:
        query = select(func.count()).select_from(SessionRow).where(SessionRow.kind == kind.value)
        return int(session.scalar(query) or 0)


def test_cancelled_futures_free_the_engine_for_the_next_step(
    tiny_model_dir: Path, tmp_path: Path
) -> None:
    app = start_app(tmp_path, engine="transformers", settings={"model": str(tiny_model_dir)})
    try:
        person = Client(app.url, verbose=False)
        out = named(person.predict("terminal", DEMO, 1, api_name="/load_turn"))
        action = json.loads(json.dumps(out["action"]))
        person.predict(action, SAMPLES, 4, "", "", "", "", max_new_tokens=3000, api_name="/futures")
        [view] = app.context.jobs.listed()
        job = app.context.jobs.get(view.id)
        for _ in range(WAIT_S * 10):  # until it decodes: the model loads first
            if job.view().done or job.wait(0.1):
                break
        assert job.view().status is JobStatus.RUNNING and job.view().done > 0
        line, _ = person.predict(api_name="/futures_cancel")
        assert 'data-status="running"' in line and "cancelling" in line
        assert job.wait(WAIT_S)
        ended = job.view()
        assert ended.status is JobStatus.CANCELLED
        assert 0 < ended.done < 4 * 3000  # stopped mid-way, not at the end of its budget
        assert sessions_of(app, SessionKind.FUTURES) == 0  # nothing half-made was stored
        polled = person.predict(api_name="/futures_poll")
        assert 'data-status="cancelled"' in polled[0] and "the engine is free" in polled[0]
        # The engine is free: a step on it completes with a stored prediction.
        step = named(person.predict(action, max_new_tokens=8, api_name="/step"))
        assert "awp-inline-error" not in step["status"]
        assert step["position"] == out["position"] + 1  # one more step than loaded
        assert sessions_of(app, SessionKind.PLAYGROUND) == 1
        # And a new job on it runs to its end.
        line, shown = follow_job(
            person, "futures", action, SAMPLES, 2, "", "", "", "", max_new_tokens=4
        )
        assert 'data-status="finished"' in line and shown[3].count("prediction #") == 2
    finally:
        app.close()
