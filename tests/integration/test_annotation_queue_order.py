"""The review queue spends a reviewer's hour well: trivial items hidden, unknown truth first."""

from __future__ import annotations

from storage.annotations import AnnotationQueue, QueueFilter
from storage.sessions import SessionStore
from tests.support.sessions import SessionWriter


def test_trivial_items_hide_and_unknown_real_states_come_first(database, make_prediction):
    sessions = SessionStore(database.session_factory)
    model = SessionWriter(sessions, "terminal", "fake", "m", kind="playground")
    wrong = model.add("a", "real a", "recorded", make_prediction("guess a")).prediction_id
    exact = model.add("b", "real b", "recorded", make_prediction("real b")).prediction_id
    unknown = model.add("c", None, None, make_prediction("guess c")).prediction_id
    oracle = SessionWriter(sessions, "terminal", "oracle", "baseline:oracle", kind="bench")
    copy = oracle.add(
        "a", "real a", "recorded", make_prediction("guess z", "oracle", "baseline:oracle")
    ).prediction_id
    queue = AnnotationQueue(database.session_factory)

    def ids(query_filter: QueueFilter) -> list[int]:
        return [item.prediction_id for item in queue.pending("ann", query_filter)]

    assert ids(QueueFilter()) == [unknown, wrong, exact, copy]  # unknown truth first
    assert ids(QueueFilter(hide_trivial=True)) == [unknown, wrong]  # no exact match, no baseline
    assert ids(QueueFilter(session_id=oracle.session_id)) == [copy]
    assert ids(QueueFilter(kind="bench")) == [copy]
    assert ids(QueueFilter(kind="playground", hide_trivial=True)) == [unknown, wrong]
