"""Eight annotators on one queue at once: no double hand-out, no lost update, no stale write."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from backend.errors import ConflictError
from backend.verdicts import Verdict
from storage.annotations import AnnotationInput, AnnotationQueue, AnnotationStore, QueueFilter
from storage.sessions import SessionStore
from tests.support.sessions import SessionWriter

THREADS = 8


def cannot_tell(text: str) -> AnnotationInput:
    """An annotation every rule allows, whatever the prediction: a note and cannot tell."""
    return AnnotationInput(verdict=Verdict.CANNOT_TELL, corrected_observation=text)


def seed(database, make_prediction, n: int) -> list[int]:
    sessions = SessionStore(database.session_factory)
    session = SessionWriter(sessions)
    records = [
        session.add(f"a{i}", f"r{i}", "recorded", make_prediction(f"p{i}")) for i in range(n)
    ]
    return [r.prediction_id for r in records if r.prediction_id is not None]


def run_all(worker, count: int = THREADS) -> list:
    barrier = threading.Barrier(count)

    def start(index: int):
        barrier.wait()
        return worker(index)

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(start, range(count)))


def test_simultaneous_claims_hand_out_each_item_once(database, make_prediction) -> None:
    ids = seed(database, make_prediction, 3)
    queue = AnnotationQueue(database.session_factory)
    items = run_all(lambda i: queue.claim_next(f"annotator-{i}"))
    claimed = [item.prediction_id for item in items if item is not None]
    assert sorted(claimed) == ids


def test_queue_drained_by_eight_annotators(database, make_prediction) -> None:
    ids = seed(database, make_prediction, 40)
    queue = AnnotationQueue(database.session_factory)
    store = AnnotationStore(database.session_factory)
    only_new = QueueFilter(unannotated_only=True)
    lock = threading.Lock()
    holding: dict[int, str] = {}
    handed: list[int] = []

    def work(index: int) -> int:
        me = f"annotator-{index}"
        done = 0
        while (item := queue.claim_next(me, only_new)) is not None:
            with lock:
                assert item.prediction_id not in holding, "handed out twice while claimed"
                holding[item.prediction_id] = me
                handed.append(item.prediction_id)
            store.submit(item.prediction_id, me, cannot_tell(me))
            with lock:
                del holding[item.prediction_id]
            done += 1
        return done

    assert sum(run_all(work)) == len(ids)
    assert sorted(handed) == ids
    annotations = store.list_annotations(limit=1000)
    assert Counter(a.prediction_id for a in annotations) == Counter(ids)


def test_concurrent_edits_lose_nothing(database, make_prediction) -> None:
    pid = seed(database, make_prediction, 1)[0]
    store = AnnotationStore(database.session_factory)
    first = store.submit(pid, "owner", cannot_tell("v1"))
    rounds = 6

    def work(index: int) -> tuple[list[str], list[str]]:
        written, refused = [], []
        for round_ in range(rounds):
            seen = store.get(first.annotation_id).version
            text = f"t{index}-r{round_}"
            try:
                store.edit(
                    first.annotation_id,
                    cannot_tell(text),
                    seen,
                    editor=f"e{index}",
                )
                written.append(text)
            except ConflictError:
                refused.append(text)
        try:
            store.edit(
                first.annotation_id,
                cannot_tell("stale"),
                1,
                editor=f"e{index}",
            )
        except ConflictError:
            refused.append("stale")
        else:
            written.append("stale")
        return written, refused

    results = run_all(work)
    written = [text for w, _ in results for text in w]
    refused = [text for _, r in results for text in r]
    assert "stale" not in written and refused.count("stale") == THREADS
    assert len(written) + len(refused) == THREADS * (rounds + 1)
    assert written, "at least one edit must win"

    history = store.history(first.annotation_id)
    assert [h.version for h in history] == list(range(1, len(written) + 2))
    assert sorted(h.corrected_observation for h in history[1:]) == sorted(written)
    final = store.get(first.annotation_id)
    assert final.version == len(written) + 1
    assert final.corrected_observation == history[-1].corrected_observation
