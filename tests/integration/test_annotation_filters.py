"""The Annotate queue's filters through gradio_client against the real app.

Each filter (domain, engine, session, source, baselines and exact matches, least confident
first) changes what the queue hands out and how many items it says are left; a value the filter
cannot use is refused beside the filters, and the open item stays as it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from gradio_client import Client

from backend.types import Prediction
from tests.support.annotate import ANNOTATE_OUTPUTS, unchanged
from tests.support.app_server import RunningApp, named, start_app
from tests.support.postgres import fake_prediction
from tests.support.sessions import SessionWriter

FILTER_OUTPUTS = (*ANNOTATE_OUTPUTS, "filter_note")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(tmp_path_factory.mktemp("annotation-filters"), anonymous_role="annotator")
    yield running
    running.close()


def predicted(
    observation: str, confidence: float | None = None, engine: str = "fake"
) -> Prediction:
    """A prediction of `engine` (the oracle as a baseline) with a confidence."""
    model = f"baseline:{engine}" if engine == "oracle" else "fake-model"
    made = fake_prediction(observation, engine, model)
    return made.model_copy(update={"confidence": confidence})


def shown(out: dict) -> tuple[int | None, int | None]:
    """The prediction the queue handed out and how many items it says are left."""
    item = re.search(r"prediction</b> #(\d+)", out["header"] or "")
    left = re.search(r"(\d+) in this queue", out["queue"] or "")
    return (int(item.group(1)) if item else None, int(left.group(1)) if left else None)


def refilter(person: Client, domain: str, session: float | None = None, **controls: Any) -> dict:
    """Change a filter: the page's outputs by name, the note beside the filters last."""
    values = {"engine": "", "kind": "", "show_trivial": False, "least": False, **controls}
    out = person.predict(domain=domain, session=session, **values, api_name="/annotate_filter")
    return named(out, FILTER_OUTPUTS)


def test_each_filter_changes_what_the_queue_hands_out(app: RunningApp) -> None:
    sessions = app.context.sessions
    model = SessionWriter(sessions, "terminal", kind="playground")
    sure = model.add("a", "real a", "recorded", predicted("guess a", 0.9)).prediction_id
    doubt = model.add("b", "real b", "recorded", predicted("guess b", 0.2)).prediction_id
    exact = model.add("c", "real c", "recorded", predicted("real c", 0.5)).prediction_id
    unknown = model.add("d", None, None, predicted("guess d", 0.95)).prediction_id
    oracle = SessionWriter(sessions, "terminal", "oracle", "baseline:oracle", kind="bench")
    copy = oracle.add("a", "real a", "recorded", predicted("real a", engine="oracle"))
    swe = SessionWriter(sessions, "swe").add("e", None, None, predicted("swe e")).prediction_id
    person = Client(app.url, verbose=False)

    # Hidden baselines and exact matches; the unknown real state first, else the oldest.
    assert shown(refilter(person, "terminal")) == (unknown, 3)
    # Least confident first: it comes before the unknown real state (the reviewer asked).
    assert shown(refilter(person, "terminal", least=True)) == (doubt, 3)
    # An empty or 0 session box means any session.
    assert shown(refilter(person, "terminal", 0, least=True)) == (doubt, 3)
    everything = refilter(person, "terminal", 0, show_trivial=True)
    assert shown(everything) == (unknown, 5) and everything["filter_note"] == ""
    assert shown(refilter(person, "terminal", oracle.session_id, show_trivial=True)) == (
        copy.prediction_id,
        1,
    )
    assert shown(refilter(person, "terminal", model.session_id)) == (unknown, 3)
    assert shown(refilter(person, "terminal", kind="bench", show_trivial=True))[1] == 1
    assert shown(refilter(person, "terminal", engine="oracle", show_trivial=True))[1] == 1
    assert shown(refilter(person, "swe", show_trivial=True)) == (swe, 1)
    assert {sure, exact} <= {
        item.prediction_id
        for item in app.context.annotation_queue.pending(
            "someone else", None
        )  # released, not stranded
    }

    refused = refilter(person, "swe", -3)
    assert "Session # -3 names no session" in refused["filter_note"]
    assert "awp-inline-error" in refused["filter_note"]
    assert all(unchanged(refused[name]) for name in ("header", "queue", "editor"))
    after = refilter(person, "swe", None, show_trivial=True)
    assert after["filter_note"] == "" and shown(after) == (swe, 1)
