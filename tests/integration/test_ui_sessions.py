"""Playground sessions through the API: blank starts, rewind and branch, and how they are stored."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from gradio_client import Client

from backend.errors import BadInputError
from tests.support.annotate import annotate, submit
from tests.support.app_server import RunningApp, named, start_app
from tests.support.status import session_of
from ui.services import EngineChoice

SCREEN = "user@host:~$ "
LS = '[{"keystrokes": "ls\\n", "duration": 0.5}]'


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(tmp_path_factory.mktemp("ui-sessions"))
    yield running
    running.close()


@pytest.fixture
def client(app: RunningApp) -> Client:
    return Client(app.url, verbose=False)


def stored(app: RunningApp, session: int):
    return app.context.sessions.load_session(session)


def step(client: Client, action: str = LS, **engine: str) -> dict:
    return named(client.predict(action, **{"engine": "persistence", **engine}, api_name="/step"))


def blank(client: Client, screen: str = SCREEN) -> dict:
    trajectory, *shown = client.predict("terminal", screen, api_name="/start_blank")
    assert trajectory["value"] is None  # the recording menu no longer names the old one
    return named(shown)


def test_blank_start_predicts_without_a_real_state(client: Client):
    assert "Blank start" in blank(client)["status"]
    out = step(client)
    assert SCREEN.strip() in out["predicted"]  # persistence repeats the previous screen
    assert "off the recording" in out["real"]
    assert "no scores" in out["scores"]
    assert out["timeline"]["data"][0][3] == "unknown"


def test_rewind_then_step_branches_and_keeps_the_original(client: Client, app: RunningApp):
    blank(client)
    step(client)
    first = step(client)
    original = session_of(first["status"])
    rewound = named(client.predict(1, api_name="/rewind"))
    assert rewound["position"] == 1 and len(rewound["timeline"]["data"]) == 1
    assert f"branches from #{original}" in rewound["status"]
    after = step(client)
    branch = session_of(after["status"])
    assert branch != original
    assert len(stored(app, original).steps) == 2
    continued = stored(app, branch)
    assert continued.parent_session_id == original and len(continued.steps) == 2


def test_branch_says_so_and_the_next_step_starts_it(client: Client, app: RunningApp):
    blank(client)
    original = session_of(step(client)["status"])
    step(client)
    branched = named(client.predict(1, api_name="/branch"))
    assert f"keeps the first 1 steps of #{original}" in branched["status"]
    assert branched["position"] == 1
    after = step(client)
    new = session_of(after["status"])
    assert new != original and f"branching from #{original}" in after["status"]
    assert stored(app, new).branched_at == 1
    assert len(stored(app, original).steps) == 2


def test_changing_engine_continues_in_a_branch(client: Client, app: RunningApp):
    loaded = named(client.predict("terminal", "mkrww/errors", 0, api_name="/load_turn"))
    first = step(client, loaded["action"])
    second = step(client, first["action"], engine="oracle")
    assert session_of(second["status"]) != session_of(first["status"])
    assert "The engine settings changed" in second["status"]
    assert stored(app, session_of(second["status"])).engine == "oracle"


def test_a_start_past_the_end_of_the_recording_says_so(client: Client):
    loaded = named(client.predict("terminal", "mkrww/errors", 99, api_name="/load_turn"))
    assert "cannot start at turn 99" in loaded["status"]


def test_unknown_trajectory_is_a_clear_error(client: Client):
    with pytest.raises(Exception, match="does not exist") as caught:
        client.predict("terminal", "no/such/recording", 0, api_name="/load_turn")
    assert "Traceback" not in str(caught.value)


def test_trajectory_of_another_domain_is_refused(client: Client):
    with pytest.raises(Exception, match="not in the web domain"):
        client.predict("web", "mkrww/errors", 0, api_name="/load_turn")


def test_bad_sampling_settings_are_explained():
    with pytest.raises(BadInputError, match="Invalid sampling settings: max_new_tokens"):
        EngineChoice.from_controls("persistence", "", "", "blind", 0.6, 0.95, 20, 0, -1)


def test_annotating_an_unknown_step_records_the_real_state(client: Client, app: RunningApp):
    blank(client)
    out = step(client)
    prediction = int(re.search(r"prediction #(\d+)", out["status"]).group(1))
    annotate(client, "open", prediction)
    submit(client, "file.txt\n" + SCREEN, "reject")
    last = stored(app, session_of(out["status"])).steps[-1]
    assert last.origin == "annotator" and last.real_observation.startswith("file.txt")


def test_stale_edit_is_refused_with_a_clear_message(client: Client, app: RunningApp):
    blank(client)
    out = step(client)
    prediction = int(re.search(r"prediction #(\d+)", out["status"]).group(1))
    browser = {"browser": "one-browser-two-tabs"}  # two tabs of one browser: one annotator
    annotate(client, "open", prediction, **browser)
    submit(client, "first", "reject", **browser)
    tab_a, tab_b = Client(app.url, verbose=False), Client(app.url, verbose=False)
    annotate(tab_a, "open", prediction, **browser)
    annotate(tab_b, "open", prediction, **browser)  # both read version 1
    assert "Saved version 2" in submit(tab_a, "second", "reject", **browser)["message"]
    refused = submit(tab_b, "third", "reject", **browser)["message"]
    assert "Not saved: Annotation" in refused and "now at version 2" in refused
    assert "Traceback" not in refused
