"""One live budget for the Gymnasium env and the OpenEnv server too: with the pool's places
held, their live resets start no sandbox and say how long to wait; OpenEnv sessions count
against their client's share.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from app.commands.env import build_app
from app.context import AppContext
from app.gym import EnvArgs, _build
from app.openenv_service import client_owner
from app.settings import Settings
from backend.envs.live import cgroups
from backend.errors import LiveEnvironmentError


@pytest.fixture
def settings_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AWP_LIVE_MAX", "1")


def test_a_gymnasium_live_reset_takes_a_place_of_the_one_pool(settings_env: None) -> None:
    context, worlds, specs = _build(
        1, EnvArgs(domain="terminal", engine="persistence", tasks="live", backing="live")
    )
    with context:
        pool = context.live_pool
        assert pool is not None and worlds[0].options.live_pool is pool
        held = pool.lease("someone-else")
        with pytest.raises(LiveEnvironmentError, match="All 1 live environments are busy"):
            worlds[0].reset(specs[0][0])
        assert pool.count() == 1  # nothing started beside the held place
        pool.release(held)


def test_an_openenv_live_reset_is_refused_with_how_long_to_wait(
    settings_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    options = {
        "domain": "terminal",
        "engine": "persistence",
        "model": None,
        "base_url": None,
        "tasks": "live",
        "reward": "reference",
        "judge": None,
        "env": "live",
        "max_steps": 3,
        "max_sessions": 4,
        "idle_timeout": 60.0,
        "max_new_tokens": None,
        "record": False,
        "host": "127.0.0.1",
    }
    app, close = build_app(options)
    # The server says once, as it starts, which limits bound its live sandboxes.
    assert capsys.readouterr().err == cgroups.limits_held(Settings().live_config()) + "\n"
    context = close.__self__
    assert isinstance(context, AppContext)
    pool = context.live_pool
    assert pool is not None
    held = pool.lease("someone-else")
    try:
        with TestClient(app) as client:
            refused = client.post("/reset", json={})
            assert refused.status_code == 503
            assert "All 1 live environments are busy" in refused.json()["detail"]
            assert "Try again" in refused.json()["detail"]
        assert pool.count() == 1
    finally:
        pool.release(held)
        close()


def test_remote_clients_are_people_and_local_ones_the_operator() -> None:
    assert client_owner({"client": ("127.0.0.1", 5000)}) is None
    assert client_owner({"client": ("::1", 5000)}) is None
    assert client_owner({"client": ("203.0.113.7", 5000)}) == "openenv:203.0.113.7"
