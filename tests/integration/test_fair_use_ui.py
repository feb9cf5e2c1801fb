"""Fair engine use through the real app (gradio_client): lanes, places, shares and budgets.

A model step "in flight" is a place taken in the app's own `FairUse` (the one every page
uses), which stands for a long model step of another person; every step asserted on is a real
`/step` of the real app. Nothing here reads a clock: it asserts what had finished when.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from gradio_client import Client
from gradio_client.client import Job

from backend.errors import BusyError
from backend.fair_use import MAX_WAITING
from tests.support.app_server import RunningApp, free_port, named, start_app
from tests.support.status import session_of

USERS = "ann:pa,bob:pb"
RECORDING = ("terminal", "mkrww/errors", 0)
POLL_S = 0.2
BOUND = 150  # polls at most, so a broken queue fails instead of hanging


def wait_until(condition, bound: int = BOUND) -> None:  # type: ignore[no-untyped-def]
    for _ in range(bound):
        if condition():
            return
        time.sleep(POLL_S)
    pytest.fail("the condition never held")


def test_a_baseline_step_passes_model_steps_and_a_waiting_step_sees_its_place(
    tmp_path: Path,
) -> None:
    # The openai engine's server does not exist: a model step that gets its turn fails fast.
    settings = {
        "base_url": f"http://127.0.0.1:{free_port()}/v1",
        "max_retries": 0,
        "concurrency": 1,
    }
    app: RunningApp = start_app(tmp_path / "app", settings=settings, users=USERS)
    fair = app.context.fair_use
    try:
        long_step = fair.admit("someone else", instant=False)  # holds the one model slot
        ann = Client(app.url, auth=("ann", "pa"), verbose=False)
        loaded = named(ann.predict(*RECORDING, api_name="/load_turn"))
        waiting = ann.submit(loaded["action"], engine="openai", api_name="/step")
        wait_until(lambda: fair.in_flight() == (1, 1))
        wait_until(lambda: any("1 step is ahead of you" in str(o) for o in waiting.outputs()))

        bob = Client(app.url, auth=("bob", "pb"), verbose=False)
        mine = named(bob.predict(*RECORDING, api_name="/load_turn"))
        done = named(bob.predict(mine["action"], engine="persistence", api_name="/step"))
        assert "persistence" in done["status"]
        assert fair.in_flight() == (1, 1) and not waiting.done()  # both model steps still there

        again = Client(app.url, auth=("ann", "pa"), verbose=False)  # ann's second tab
        named(again.predict(*RECORDING, api_name="/load_turn"))
        with pytest.raises(Exception, match="already have a step"):
            again.predict(loaded["action"], engine="persistence", api_name="/step")

        long_step.release()
        wait_until(waiting.done)
        assert fair.in_flight() == (0, 0)
    finally:
        app.close()


def test_an_anonymous_visitors_budget_is_cut(tmp_path: Path) -> None:
    app = start_app(
        tmp_path / "app", anonymous_role="annotator", settings={"anonymous_max_new_tokens": 32}
    )
    try:
        client = Client(app.url, verbose=False)
        loaded = named(client.predict(*RECORDING, api_name="/load_turn"))
        out = named(
            client.predict(
                loaded["action"], engine="persistence", max_new_tokens=262144, api_name="/step"
            )
        )
        stored = app.context.sessions.load_session(session_of(out["status"]))
        assert stored.params["max_new_tokens"] == 32
    finally:
        app.close()


FLOOD = MAX_WAITING + 8
"""Issue 20's flood was 68 sessions (13 new clients then timed out connecting): here the model
queue fills, the eight beyond it are refused, and a new visitor still connects and steps."""
CLIENT_TIMEOUT_S = 120.0
"""Seconds a visitor's client waits for an answer: a server whose threads are all taken never
answers the newcomer before the queue drains, which only happens after its step."""


def visit(app: RunningApp, address: str) -> Client:
    """A visitor behind the proxy at `address`, patient with a server serving a full queue.

    gradio_client gives each request 5 s by default; a busy CPU serving 32 waiting steps can take
    longer to send a newcomer the app's config, and the test is about what the server decides.
    """
    return Client(
        app.url,
        headers={"X-Forwarded-For": address},
        httpx_kwargs={"timeout": CLIENT_TIMEOUT_S},
        verbose=False,
    )


def test_a_new_visitor_connects_and_steps_while_a_full_queue_waits(tmp_path: Path) -> None:
    # Visitors behind a proxy (one address each) queue model steps behind a held slot.
    settings = {
        "base_url": f"http://127.0.0.1:{free_port()}/v1",
        "max_retries": 0,
        "concurrency": 1,
        "trust_proxy": True,
    }
    app: RunningApp = start_app(tmp_path / "app", settings=settings)
    fair = app.context.fair_use
    try:
        long_step = fair.admit("someone else", instant=False)

        def queue_one(n: int) -> Job:
            visitor = visit(app, f"10.7.0.{n + 1}")
            loaded = named(visitor.predict(*RECORDING, api_name="/load_turn"))
            return visitor.submit(loaded["action"], engine="openai", api_name="/step")

        with ThreadPoolExecutor(8) as pool:  # eight visitors arrive at a time
            flood = list(pool.map(queue_one, range(FLOOD)))
        wait_until(lambda: fair.in_flight() == (1, MAX_WAITING), bound=900)
        with pytest.raises(BusyError, match="model queue is full"):  # one more is refused
            fair.admit("one more visitor", instant=False)

        newcomer = visit(app, "10.8.0.1")
        mine = named(newcomer.predict(*RECORDING, api_name="/load_turn"))
        done = named(newcomer.predict(mine["action"], engine="persistence", api_name="/step"))
        assert "persistence" in done["status"]
        assert fair.in_flight()[0] == 1 and fair.in_flight()[1] <= MAX_WAITING  # none ran

        # Every refused visitor was told why (a client that gave up under load says "timed out").
        refused = [str(job.exception()) for job in flood if job.done()]
        assert all("queue is full" in e or "timed out" in e for e in refused), refused
        long_step.release()
        wait_until(lambda: fair.in_flight() == (0, 0), bound=900)
    finally:
        app.close()
