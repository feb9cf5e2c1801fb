"""The Playground with a live environment as the source of real states, through its API."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from gradio_client import Client

from backend.envs.live import cgroups
from tests.support.app_server import RunningApp, named, start_app
from tests.support.live import skip_unless_live
from tests.support.status import session_of

pytestmark = skip_unless_live("terminal")

ECHO = '[{"keystrokes": "echo hello-live\\n", "duration": 0.5}]'
PWD = '[{"keystrokes": "pwd\\n", "duration": 0.5}]'


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(tmp_path_factory.mktemp("live-ui"), settings={"live_max": 1})
    yield running
    running.close()


def step(client: Client, action: str) -> dict:
    return named(client.predict(action, engine="persistence", api_name="/step"))


def test_live_steps_are_scored_against_reality_and_stored(app: RunningApp) -> None:
    client = Client(app.url, verbose=False)
    started = named(client.predict("terminal", "shell", api_name="/start_live"))
    assert "Live terminal environment started at task shell" in started["status"]
    assert "user@sandbox:~$" in started["before"]

    first = step(client, ECHO)
    assert "hello-live" in first["real"] and "Real (live) after step 1" in first["real"]
    # Each side names its source, read from the stored provenance.
    assert "live: a live terminal run #live/terminal/" in first["real"]
    assert "predicted by persistence (baseline:persistence)" in first["predicted"]
    assert "screen_delta" in first["scores"]
    second = step(client, PWD)
    assert "/home/user" in second["real"]

    other = Client(app.url, verbose=False)
    with pytest.raises(Exception, match="All 1 live environments are busy"):
        other.predict("terminal", "shell", api_name="/start_live")

    client.predict(1, api_name="/rewind")
    again = step(client, PWD)
    assert "replayed the 1 kept actions" in again["status"]
    screen = again["real"].split("awp-term", 1)[1]
    assert "hello-live" in screen and screen.count("pwd") == 1

    stored = app.context.sessions.load_session(session_of(again["status"]))
    assert stored.base_trajectory_id is not None
    trajectory = app.context.trajectories.get(stored.base_trajectory_id)
    assert [s.origin for s in stored.steps] == ["live", "live"]
    assert trajectory.source == "live:terminal"
    assert [turn.action for turn in trajectory.turns] == [s.action for s in stored.steps]


def test_android_has_no_live_environment(app: RunningApp) -> None:
    client = Client(app.url, verbose=False)
    note = client.predict("android", api_name="/select_domain")[3]
    assert "no emulator" in note
    with pytest.raises(Exception, match="no emulator"):
        client.predict("android", None, api_name="/start_live")


def test_the_live_note_says_which_limits_hold(app: RunningApp) -> None:
    note = Client(app.url, verbose=False).predict("terminal", api_name="/select_domain")[3]
    if cgroups.enabled():
        assert "Limits hold per sandbox (cgroups): all its processes together" in note
        assert "1024 MB of memory plus its 256 MB of files" in note
    else:
        assert f"Limits hold per process only (no cgroups: {cgroups.unavailable()})" in note


def rollouts_note(app: RunningApp) -> str:
    """The sentence the Rollouts page shows where a live (shadow, hybrid) run is started."""
    config = httpx.get(f"{app.url.rstrip('/')}/config", timeout=30).json()
    (note,) = [
        c["props"]["value"]
        for c in config["components"]
        if c.get("props", {}).get("elem_id") == "ro-live-limits"
    ]
    return str(note)


def test_the_rollouts_page_says_the_same_limits_where_live_runs_start(app: RunningApp) -> None:
    playground = Client(app.url, verbose=False).predict("terminal", api_name="/select_domain")[3]
    sentence = cgroups.limits_held(app.context.settings.live_config())
    assert sentence in playground
    assert rollouts_note(app) == f"Shadow and hybrid runs act in live sandboxes. {sentence}"


def test_with_cgroups_off_the_note_says_only_per_process_limits_hold(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    settings = {"live_max": 1, "live_cgroups": "off"}
    running = start_app(tmp_path_factory.mktemp("live-ui-off"), settings=settings)
    try:
        note = Client(running.url, verbose=False).predict("terminal", api_name="/select_domain")[3]
        assert (
            "Limits hold per process only (no cgroups: switched off (`AWP_LIVE_CGROUPS=off`))"
            in note
        )
        assert "each process gets 1024 MB of address space" in note
        assert "Limits hold per process only (no cgroups: switched off" in rollouts_note(running)
    finally:
        running.close()
