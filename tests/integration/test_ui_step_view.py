"""An honest step view: nothing on screen belongs to another step, and every wait is explained.

Driven with gradio_client's `submit`, whose job keeps every frame a streaming step yielded, so
the frames before an error are checked too, not only the final state.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from gradio_client import Client

from app.auth import Auth
from app.web import build_services
from backend.types import SamplingParams
from tests.support.app_server import RunningApp, named, start_app
from ui.play import Done, Partial, Playground, Preparing
from ui.services import EngineChoice
from ui.session import PlaySession

RECORDING = "mkrww/errors"
OFF_RECORDING = '[{"keystrokes": "uname -a\\n", "duration": 1}]'


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(tmp_path_factory.mktemp("step-view"))
    yield running
    running.close()


@pytest.fixture
def client(app: RunningApp) -> Client:
    return Client(app.url, verbose=False)


def frames(client: Client, action: str, **engine: str) -> tuple[list[dict], Exception | None]:
    """Every frame a step yielded (named), and the error it ended with, if any."""
    job = client.submit(action, **engine, api_name="/step")
    error = None
    try:
        job.result()
    except Exception as exc:
        error = exc
    return [named(frame) for frame in job.outputs()], error


def stored_sessions(app: RunningApp) -> int:
    return len(app.context.sessions.list_sessions())


def test_a_failed_step_clears_the_previous_steps_panels(client: Client, app: RunningApp):
    loaded = named(client.predict("terminal", RECORDING, 0, api_name="/load_turn"))
    done = named(client.predict(loaded["action"], engine="oracle", api_name="/step"))
    assert "Identical." in done["diff"] and "1.00" in done["scores"]
    before = stored_sessions(app)
    shown, error = frames(
        client, OFF_RECORDING, engine="openai", base_url="http://127.0.0.1:9/v1", model="m"
    )
    assert error is not None and "Cannot reach" in str(error) and "Traceback" not in str(error)
    last = shown[-1]
    assert "Step 2 was not taken" in last["status"] and "Nothing was stored" in last["status"]
    assert "the step did not finish" in last["predicted"] and "uname -a" in last["predicted"]
    assert "No real state shown" in last["real"]
    assert last["scores"] == "" and last["diff"] == ""
    assert stored_sessions(app) == before


def test_streaming_frames_name_their_step_and_hide_old_scores(client: Client):
    loaded = named(client.predict("terminal", RECORDING, 0, api_name="/load_turn"))
    first = named(client.predict(loaded["action"], engine="persistence", api_name="/step"))
    shown, error = frames(client, first["action"], engine="persistence")
    assert error is None
    opening = shown[0]  # the step's job started: nothing of step 1 stays on screen
    assert "Step 2 started" in opening["status"]
    assert "after step 2" in opening["predicted"] and "after step 2" in opening["real"]
    assert "Scores appear when the prediction is complete" in opening["scores"]
    # The streamed frames that show text (others move the job line only), then the stored step.
    for frame in shown[1:]:
        assert not isinstance(frame["predicted"], str) or "after step 2" in frame["predicted"]
    assert "Stored as prediction" in shown[-1]["status"]


def test_a_step_is_a_job_whose_line_says_what_it_did(client: Client, app: RunningApp):
    loaded = named(client.predict("terminal", RECORDING, 0, api_name="/load_turn"))
    done = named(client.predict(loaded["action"], engine="persistence", api_name="/step"))
    line = done["job"]
    assert 'data-status="finished"' in line and "Step 1 (persistence): done in" in line
    job = next(view for view in app.context.jobs.listed() if view.kind == "step")
    assert job.status == "finished" and f"?job={job.id}" not in line  # ended: no reopen link


def test_the_oracle_off_the_recording_is_flagged_before_the_step(client: Client):
    client.predict("terminal", RECORDING, 0, api_name="/load_turn")
    message = client.predict(OFF_RECORDING, "oracle", api_name="/validate_action")
    assert "oracle baseline" in message and "would fail" in message
    assert client.predict(OFF_RECORDING, "persistence", api_name="/validate_action") == (
        "✓ valid action"
    )


def test_a_slow_first_use_of_a_model_says_so(
    app: RunningApp, tiny_model_dir: Path, tmp_path: Path
) -> None:
    """The first step on a model the app has not loaded says it prepares it, then generates.

    Asked of the playground's step itself, which keeps every event: the Step button's callback
    reads its job a few times a second, so where the disk cache holds the model (a machine that
    ran the suite before) the load ends between two reads and its line is never drawn, rightly,
    as no one waited. A fresh copy of the model folder is a model this app has never loaded,
    whatever ran before, so the first use here is really first.
    """
    model = tmp_path / "tiny-model"
    shutil.copytree(tiny_model_dir, model)
    services = build_services(app.context, Auth(app.context.settings))
    choice = EngineChoice("transformers", str(model), params=SamplingParams(max_new_tokens=4))
    playground = Playground(services)
    events = list(playground.step(PlaySession("terminal"), OFF_RECORDING, choice, "first-use"))
    first, generating, done = events[0], events[1], events[-1]
    assert isinstance(first, Preparing), events
    assert f"Preparing the transformers model ({model})" in first.message
    assert isinstance(generating, Partial) and generating.index == 1
    assert isinstance(done, Done) and len(done.session.steps) == 1
    again = list(playground.step(done.session, OFF_RECORDING, choice, "first-use"))
    assert not any(isinstance(event, Preparing) for event in again)  # loaded once, not per step


def test_cancel_releases_an_in_process_engine(
    client: Client, app: RunningApp, tiny_model_dir: Path
):
    """A cancelled step stores nothing and must not keep the model busy for the next step."""
    client.predict("terminal", "", api_name="/start_blank")
    before = stored_sessions(app)
    engine = {"engine": "transformers", "model": str(tiny_model_dir)}
    running = client.submit(OFF_RECORDING, **engine, max_new_tokens=100_000, api_name="/step")
    job = None
    for _ in range(1200):  # until it decodes: the model may load first
        steps = [view for view in app.context.jobs.listed() if view.kind == "step"]
        if steps and steps[0].status == "running" and steps[0].done:
            job = app.context.jobs.get(steps[0].id)
            break
        time.sleep(0.1)
    assert job is not None, "the step never decoded a token"
    line, _ = client.predict(api_name="/step_cancel")
    assert "cancelling" in line or 'data-status="cancelled"' in line
    assert job.wait(120)
    running.result()  # the callback ends without an error: the step says it was cancelled
    last = named(running.outputs()[-1])
    assert "You cancelled it" in last["status"] and "Nothing was stored" in last["status"]
    assert "cancelled after" in last["job"] and "the engine is free" in last["job"]
    ended = job.view()
    assert ended.status == "cancelled" and 0 < ended.done < 100_000  # stopped mid-way
    assert stored_sessions(app) == before  # the cancelled step stored nothing
    done = named(client.predict(OFF_RECORDING, **engine, max_new_tokens=4, api_name="/step"))
    assert "Stored as prediction" in done["status"]
    assert stored_sessions(app) == before + 1
