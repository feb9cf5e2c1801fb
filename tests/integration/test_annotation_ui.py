"""The Annotate page through gradio_client against the real app: rules, truth, identity, queue.

Each test seeds its own predictions through the real recorder, in a domain no other test of the
module uses, so the tests share one app without sharing a queue.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from gradio_client import Client

from storage.models import PredictionRow
from tests.support.annotate import RATED, annotate, submit, unchanged, value_of
from tests.support.app_server import RunningApp, start_app
from tests.support.postgres import fake_prediction
from tests.support.sessions import SessionWriter

UNRATED = dict.fromkeys(RATED)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(tmp_path_factory.mktemp("annotation-ui"), anonymous_role="annotator")
    yield running
    running.close()


ADDRESSES = itertools.count(1)


def client(app: RunningApp, address: str | None = None) -> Client:
    """One anonymous person, at an address of their own (uvicorn believes loopback's proxy header).

    A new address unless `address` is given (the same person again, e.g. after a reload).
    """
    address = address or f"10.0.0.{next(ADDRESSES)}"
    return Client(app.url, verbose=False, headers={"X-Forwarded-For": address})


def seed(app: RunningApp, domain: str, n: int, real: str | None = None) -> list[int]:
    """`n` predictions "<domain> pred i" in a new session; steps unrecorded unless `real`."""
    writer = SessionWriter(app.context.sessions, domain=domain)
    origin = "recorded" if real is not None else None
    records = [
        writer.add(f"act {i}", real, origin, fake_prediction(f"{domain} pred {i}"))
        for i in range(n)
    ]
    return [r.prediction_id for r in records if r.prediction_id is not None]


def shown_id(out: dict) -> int:
    return int(re.search(r"prediction</b> #(\d+)", out["header"]).group(1))


def stored(app: RunningApp, prediction_id: int) -> tuple[list, str | None, str | None]:
    """Annotations of a prediction, and its step's real observation and origin."""
    annotations = app.context.annotations.list_annotations(prediction_id)
    with app.context.database.session_factory() as session:
        step = session.get(PredictionRow, prediction_id).step
        return annotations, step.real_observation, step.origin


def test_a_submit_needs_a_verdict_that_agrees_with_the_correction(app: RunningApp):
    (pid,) = seed(app, "swe", 1)
    person = client(app)
    opened = annotate(person, "open", pid)
    assert (opened["editor"], opened["message"]) == ("swe pred 0", "")
    refusals = [
        (("swe pred 0", None), "Not saved: no verdict: choose accept, reject or cannot tell"),
        (("swe pred 0 edited", "accept"), "accept means the prediction is right as it stands"),
        (("swe pred 0 \n", "reject"), "a reject needs a correction that differs"),
    ]
    for (corrected, verdict), words in refusals:
        out = submit(person, corrected, verdict)
        assert words in out["message"] and "an-refused" in out["message"]
        assert all(unchanged(out[name]) for name in ("editor", "header", "verdict", "real"))
    unrated = submit(person, "the truth", "reject", format=None, quality=None)
    assert "a reject needs all five ratings (missing: format, quality)" in unrated["message"]
    assert stored(app, pid) == ([], None, None)  # nothing refused was written, anywhere

    saved = submit(person, "swe pred 0", "accept", **UNRATED)
    assert "Saved version 1 of your annotation of prediction #" in saved["message"]
    assert f"#{pid}: accept." in saved["message"] and "an-saved" in saved["message"]
    (annotation,), real, origin = stored(app, pid)
    assert (annotation.verdict, real, origin) == ("accept", "swe pred 0", "annotator")


def test_only_a_verdict_that_establishes_the_truth_fills_the_real_state(app: RunningApp):
    unsure, accepted = seed(app, "search", 2)
    first, second = client(app), client(app)
    annotate(first, "open", unsure)
    submit(first, "could be anything", "cannot_tell", **UNRATED)
    assert stored(app, unsure)[1:] == (None, None)
    later = annotate(second, "open", unsure)
    assert "Unknown: nobody recorded what really happened" in later["real_origin"]

    annotate(first, "open", accepted)
    submit(first, "search pred 1", "accept")
    assert stored(app, accepted)[1:] == ("search pred 1", "annotator")
    # One annotator's truth is not trusted (`backend.trust`): another is not shown it.
    later = annotate(second, "open", accepted)
    assert "not trusted yet, so it is not shown" in later["real_origin"]
    assert "search pred 1" not in later["real"]
    annotate(second, "skip", "search")
    own = annotate(first, "open", accepted)
    assert "<b>source</b> annotator" in own["real_origin"]
    assert "written by an annotator" in own["real_origin"]
    assert value_of(first.predict(api_name="/annotate_use_real")) == "search pred 1"
    assert value_of(first.predict(api_name="/annotate_reset")) == "search pred 1"


def test_a_refused_open_says_why_next_to_open_and_changes_nothing_else(app: RunningApp):
    (pid,) = seed(app, "terminal", 1, real="$ ")
    holder, other = client(app), client(app)
    annotate(holder, "open", pid)
    shown = annotate(other, "open", pid)
    assert "Not opened: Prediction" in shown["open_note"]
    assert "being reviewed by another annotator" in shown["open_note"]
    assert all(unchanged(v) for k, v in shown.items() if k not in ("open_note", "browser"))
    for asked, words in ((999_999, "does not exist"), (None, "Type the number of a prediction")):
        refused = annotate(other, "open", asked)
        assert words in refused["open_note"] and unchanged(refused["header"])
    fine = annotate(holder, "open", pid)
    assert fine["open_note"] == "" and shown_id(fine) == pid


def test_two_anonymous_browsers_get_different_items_and_both_are_kept(app: RunningApp):
    ids = seed(app, "os", 2)
    people = [client(app), client(app)]
    with ThreadPoolExecutor(2) as pool:
        items = list(pool.map(lambda person: annotate(person, "next", "os"), people))
    assert sorted(shown_id(out) for out in items) == ids
    names = {re.search(r"<b>you</b> (anonymous-\w+)", out["queue"]).group(1) for out in items}
    assert len(names) == 2
    for index, person in enumerate(people):
        truth = f"Window\tbrowser {index}\t0,0\t10,10"  # an OSWorld accessibility table
        saved = submit(person, truth, "reject", domain="os")
        assert "Saved version 1" in saved["message"]
    kept = app.context.annotations.list_annotations(domain="os")
    assert {a.annotator for a in kept} == names and len(kept) == 2


def test_skip_walks_the_queue_and_skipped_items_come_back_last(app: RunningApp):
    ids = seed(app, "android", 7)
    person = client(app, "10.1.0.1")
    seen = [shown_id(annotate(person, "next", "android"))]
    for _ in range(5):
        seen.append(shown_id(annotate(person, "skip", "android")))
    assert seen == ids[:6]
    reloaded = client(app, "10.1.0.1")  # the same person after a reload: a new session
    again = annotate(reloaded, "next", "android")
    assert shown_id(again) == ids[5]
    assert "6 in this queue, this one included" not in again["queue"]
    assert "7 in this queue, this one included" in again["queue"]
    after = submit(reloaded, "x", "cannot_tell", domain="android", **UNRATED)
    assert shown_id(after) == ids[6]
    skipped_last = annotate(reloaded, "skip", "android")
    assert shown_id(skipped_last) == ids[0]  # the first skipped comes back first


def test_the_end_of_the_queue_says_who_still_holds_items(app: RunningApp):
    seed(app, "mcp", 2)
    for holder in (client(app), client(app)):
        annotate(holder, "next", "mcp")
    late = annotate(client(app), "next", "mcp")
    assert (
        "The queue is empty for you: 2 items are being reviewed by other annotators"
        in (late["header"])
    )
    assert re.search(r"their claims expire between \d\d:\d\d UTC \(in \d+ min\)", late["header"])
    assert "being reviewed by others</b> 2" in late["queue"]
