"""Annotation service on real databases: queue, claims, optimistic locking, history, stats."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from backend.errors import ConflictError, NotFoundError
from backend.scoring import MetricResult
from backend.types import Prediction
from backend.verdicts import Verdict
from storage.annotations import (
    AnnotationInput,
    AnnotationQueue,
    AnnotationStore,
    QueueFilter,
    Ratings,
    agreement,
    annotator_progress,
    domain_progress,
)
from storage.sessions import SessionStore
from tests.support.sessions import SessionWriter


def seed(database, make_prediction: Callable[..., Prediction]) -> dict[str, list[int]]:
    """Terminal/fake (4 predictions, scores 0, .25, .5, .75) and web/oracle (2, score 1)."""
    sessions = SessionStore(database.session_factory)
    ids: dict[str, list[int]] = {"terminal": [], "web": []}
    for domain, engine, n in (("terminal", "fake", 4), ("web", "oracle", 2)):
        session = SessionWriter(sessions, domain, engine, "m", initial_state="S0")
        for i in range(n):
            value = i / 4 if domain == "terminal" else 1.0
            record = session.add(
                f"act {i}",
                f"real {i}",
                "recorded",
                make_prediction(f"pred {i}", engine=engine),
                [MetricResult(name="exact", version=1, value=value)],
            )
            assert record.prediction_id is not None
            ids[domain].append(record.prediction_id)
    return ids


ALL_THREE = dict.fromkeys(("format", "factuality", "consistency", "realism", "quality"), 3)


WEB = "RootWebArea 'fixed'"
"""A web correction: web observations must parse as accessibility trees (`backend.observations`)."""


def correction(text: str = "fixed", **ratings: int) -> AnnotationInput:
    """A reject: the correction `text`, every dimension rated (3 unless given)."""
    return AnnotationInput(
        verdict=Verdict.REJECT, corrected_observation=text, ratings=Ratings(**ALL_THREE | ratings)
    )


def test_queue_filters(database, make_prediction) -> None:
    ids = seed(database, make_prediction)
    queue = AnnotationQueue(database.session_factory)
    store = AnnotationStore(database.session_factory)
    assert [i.prediction_id for i in queue.pending("ann")] == ids["terminal"] + ids["web"]
    assert [i.prediction_id for i in queue.pending("ann", QueueFilter(domain="web"))] == ids["web"]
    assert [i.prediction_id for i in queue.pending("ann", QueueFilter(engine="fake"))] == ids[
        "terminal"
    ]
    hard = QueueFilter(metric="exact", min_value=0.2, max_value=0.6)
    assert [i.prediction_id for i in queue.pending("ann", hard)] == ids["terminal"][1:3]
    assert queue.count_pending("ann", hard) == 2

    store.submit(ids["terminal"][0], "ann", correction())
    assert ids["terminal"][0] not in [i.prediction_id for i in queue.pending("ann")]
    assert ids["terminal"][0] in [i.prediction_id for i in queue.pending("bob")]
    assert ids["terminal"][0] not in [
        i.prediction_id for i in queue.pending("bob", QueueFilter(unannotated_only=True))
    ]

    item = queue.pending("ann", QueueFilter(domain="terminal"))[1]
    assert (item.action, item.previous_observation, item.real_observation) == (
        "act 2",
        "real 1",
        "real 2",
    )
    assert (item.predicted_observation, item.scores, item.domain) == (
        "pred 2",
        {"exact": 0.5},
        "terminal",
    )
    first = queue.pending("ann", QueueFilter(domain="web"))[0]
    assert first.previous_observation == "S0"


def test_claims_expire_and_are_not_shared(database, make_prediction) -> None:
    ids = seed(database, make_prediction)
    queue = AnnotationQueue(database.session_factory)
    web = QueueFilter(domain="web")
    a = queue.claim_next("ann", web)
    b = queue.claim_next("bob", web)
    assert a is not None and b is not None and a.prediction_id != b.prediction_id
    assert a.claim_expires_at is not None
    assert queue.claim_next("cy", web) is None
    assert queue.claim_next("ann", web).prediction_id == a.prediction_id  # own claim comes back
    with pytest.raises(ConflictError, match="another annotator"):
        queue.claim(a.prediction_id, "bob")
    queue.release(a.prediction_id, "ann")
    assert queue.claim_next("cy", web).prediction_id == a.prediction_id

    expired = AnnotationQueue(database.session_factory, claim_ttl=timedelta(seconds=-1))
    taken = expired.claim(ids["terminal"][0], "ann")
    assert queue.claim(taken.prediction_id, "bob").prediction_id == taken.prediction_id
    with pytest.raises(NotFoundError):
        queue.claim(999_999, "ann")


def test_submit_edit_conflicts_and_history(database, make_prediction) -> None:
    ids = seed(database, make_prediction)
    queue = AnnotationQueue(database.session_factory)
    store = AnnotationStore(database.session_factory)
    pid = queue.claim_next("ann").prediction_id
    first = store.submit(pid, "ann", correction("v1", format=4, quality=2), source="ui")
    assert (first.version, first.ratings["format"], first.ratings["realism"]) == (1, 4, 3)
    assert queue.claim(pid, "bob").prediction_id == pid  # submitting released the claim

    with pytest.raises(ConflictError, match="already annotated"):
        store.submit(pid, "ann", correction("again"))
    second = store.submit(pid, "ann", correction("v2"), expected_version=1)
    assert second.version == 2
    with pytest.raises(ConflictError, match="now at version 2"):
        store.submit(pid, "ann", correction("stale"), expected_version=1)
    third = store.edit(second.annotation_id, correction("v3"), 2, editor="reviewer")
    assert (
        third.version,
        third.annotator,
        store.get(third.annotation_id).corrected_observation,
    ) == (3, "ann", "v3")
    with pytest.raises(ConflictError):
        store.edit(second.annotation_id, correction("lost"), 2, editor="reviewer")

    history = store.history(first.annotation_id)
    assert [(h.version, h.editor, h.corrected_observation) for h in history] == [
        (1, "ann", "v1"),
        (2, "ann", "v2"),
        (3, "reviewer", "v3"),
    ]
    assert history[0].ratings["quality"] == 2
    with pytest.raises(NotFoundError):
        store.submit(999_999, "ann", correction())
    with pytest.raises(NotFoundError):
        store.submit(ids["web"][0], "ann", correction(WEB), expected_version=1)
    with pytest.raises(NotFoundError):
        store.edit(999_999, correction(), 1, editor="x")
    listed = store.list_annotations(annotator="ann")
    assert [(a.prediction_id, a.version) for a in listed] == [(pid, 3)]
    assert store.list_annotations(domain="web") == []


def test_progress_and_agreement(database, make_prediction) -> None:
    ids = seed(database, make_prediction)
    store = AnnotationStore(database.session_factory)
    t0, t1 = ids["terminal"][:2]
    w0, w1 = ids["web"]
    agree = dict(format=5, factuality=4, consistency=3, realism=2, quality=1)
    store.submit(t0, "ann", correction("x", **agree))
    store.submit(t0, "bob", correction("x ", **agree))
    rated = Ratings(format=5, factuality=4, consistency=4, realism=4, quality=4)
    store.submit(t1, "ann", AnnotationInput(verdict=Verdict.ACCEPT, ratings=rated))
    store.submit(t1, "bob", correction("z", format=3))
    store.submit(w0, "ann", correction(WEB))
    store.submit(w1, "ann", AnnotationInput(verdict=Verdict.CANNOT_TELL))
    store.submit(w1, "bob", correction(f"{WEB}\n  [2] button 'w'"))

    progress = {
        (p.annotator, p.domain): (p.annotated, p.accepted, p.rejected, p.cannot_tell)
        for p in annotator_progress(database.session_factory)
    }
    assert progress == {
        ("ann", "terminal"): (2, 1, 1, 0),
        ("ann", "web"): (2, 0, 1, 1),
        ("bob", "terminal"): (2, 0, 2, 0),
        ("bob", "web"): (1, 0, 1, 0),
    }
    assert [
        (p.annotator, p.domain) for p in annotator_progress(database.session_factory, "bob")
    ] == [("bob", "terminal"), ("bob", "web")]
    domains = {
        (d.domain, d.predictions, d.annotated, d.annotated_twice)
        for d in domain_progress(database.session_factory)
    }
    assert domains == {("terminal", 4, 2, 2), ("web", 2, 2, 1)}

    overall, by_domain = agreement(database.session_factory)
    # Three pairs; the cannot-tell one has no verdict to agree on. Corrections: t0 agrees
    # (whitespace aside), t1 (the accepted prediction vs "z") and w1 do not.
    assert (overall.predictions, overall.pairs, overall.verdict) == (3, 3, 0.5)
    assert overall.same_correction == pytest.approx(1 / 3)
    fmt = overall.dimensions["format"]
    assert (fmt.pairs, fmt.exact, fmt.within_one, fmt.mean_abs_diff) == (2, 0.5, 0.5, 1.0)
    assert overall.dimensions["quality"].pairs == 2
    assert list(by_domain) == ["terminal", "web"]
    assert by_domain["web"].verdict is None
    none, _ = agreement(database.session_factory, annotator="cy")
    assert (none.pairs, none.verdict, none.dimensions) == (0, None, {})
