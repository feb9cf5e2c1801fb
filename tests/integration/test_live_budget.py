"""One live budget: the Rollouts page's shadow episodes take places of the pool the Playground
uses, so they cannot start sandboxes past `AWP_LIVE_MAX`; one person holds at most a share.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gradio_client import Client

from backend.envs.live.base import LiveConfig
from backend.envs.live.pool import LivePool
from backend.errors import LiveEnvironmentError
from tests.support.app_server import RunningApp, follow_job, start_app


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(tmp_path_factory.mktemp("live-budget"), settings={"live_max": 2})
    yield running
    running.close()


def test_a_shadow_run_cannot_exceed_the_budget_while_its_places_are_held(
    app: RunningApp,
) -> None:
    pool = app.context.live_pool
    assert pool is not None
    held = [pool.lease("someone-else"), pool.lease("another")]
    try:
        client = Client(app.url, verbose=False)
        shown, _ = follow_job(client, "rollout_run", "terminal", "replay", "oracle", 2, 3, "shadow")
        assert 'data-status="failed"' in shown and "All 2 live environments are busy" in shown
        assert pool.count() == 2  # nothing started beside the held places
    finally:
        for token in held:
            pool.release(token)
    assert pool.count() == 0


def test_one_owner_holds_at_most_a_share_and_the_refusal_says_how_long(tmp_path: Path) -> None:
    now = [0.0]
    pool = LivePool(
        LiveConfig(work_dir=tmp_path),
        capacity=3,
        idle_timeout_s=600,
        clock=lambda: now[0],
        per_owner=2,
    )
    mine = [pool.lease("me"), pool.lease("me")]
    with pytest.raises(LiveEnvironmentError, match="your share of 3"):
        pool.lease("me")
    pool.lease("you")
    with pytest.raises(LiveEnvironmentError, match=r"All 3 live environments are busy\. Try again"):
        pool.lease("them")
    pool.release(mine[0])
    assert pool.lease("them") and pool.count() == 3
    with pytest.raises(LiveEnvironmentError, match="busy"):
        pool.lease(None)
