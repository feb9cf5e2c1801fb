"""The live-environment pool: a cap, idle runs closed, one run per browser session."""

from __future__ import annotations

from pathlib import Path

import pytest

from backend.envs.live.pool import LivePool
from backend.errors import LiveEnvironmentError
from tests.support.live import keys, live_config, sandbox_of, skip_unless_live

pytestmark = skip_unless_live("terminal")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_capacity_idle_reaping_and_owners(tmp_path: Path) -> None:
    clock = Clock()
    pool = LivePool(live_config(tmp_path), capacity=2, idle_timeout_s=60, clock=clock)
    try:
        first, replaced = pool.open("tab-a", "terminal", None)
        pool.open("tab-b", "terminal", "project")
        with pytest.raises(LiveEnvironmentError, match="All 2 live environments are busy"):
            pool.open("tab-c", "terminal", None)

        # A tab that starts again replaces its own run instead of taking another place.
        again, _ = pool.open("tab-a", "terminal", None)
        assert pool.count() == 2 and again != first
        assert replaced.env._sandbox is None  # type: ignore[attr-defined]  # closed
        with pytest.raises(LiveEnvironmentError, match="was closed"):
            pool.use(first)

        clock.now = 30.0
        run, lock = pool.use(again)  # using a run keeps it alive
        with lock:
            assert "hi" in run.act(keys(("echo hi\n", 0.3))).observation
        clock.now = 75.0
        assert pool.reap() == 1  # tab-b's run was idle for 75 s; tab-a's for 45 s
        assert pool.count() == 1
        pool.open("tab-c", "terminal", None)  # its place is free again
        pool.close_owner("tab-a")
        assert pool.count() == 1
        _, last_folder = sandbox_of(pool.use(pool.open("tab-d", "terminal", None)[0])[0].env)
    finally:
        pool.close_all()
    assert pool.count() == 0 and not last_folder.exists()
