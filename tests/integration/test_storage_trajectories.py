"""Trajectory storage: insert-or-replace, lookup, listing and streaming on real databases."""

from __future__ import annotations

import pytest

from backend.errors import NotFoundError
from backend.provenance import Recorded
from backend.sources import turn_sources
from backend.types import Trajectory, Turn
from storage.sessions import SessionStore
from storage.trajectories import TrajectoryStore
from tests.support.sessions import SessionWriter


def trajectory(tid: str, domain: str = "terminal", turns: int = 2, **kwargs: object) -> Trajectory:
    return Trajectory(
        id=tid,
        domain=domain,
        system_prompt="You simulate a terminal.",
        task="list files",
        initial_state="$ ",
        turns=[Turn(action=f"a{i}", observation=f"o{i}\u2028x") for i in range(turns)],
        source="test",
        licence="Apache-2.0",
        metadata={"origin": {"file": "x.jsonl", "line": 3}},
        **kwargs,
    )


def with_provenance(trajectory: Trajectory) -> Trajectory:
    """The recording as storage returns it: each turn with its source filled in."""
    turns = [
        turn.model_copy(update={"provenance": source})
        for turn, source in zip(trajectory.turns, turn_sources(trajectory), strict=True)
    ]
    return trajectory.model_copy(update={"turns": turns})


def test_upsert_round_trip_and_replace(database) -> None:
    store = TrajectoryStore(database.session_factory)
    original = trajectory("t1", commit="abc", notes="n", action_inferred=True)
    store.upsert(original)
    # Storage keeps each turn's source: the import's dataset, row and turn.
    assert store.get("t1") == with_provenance(original)
    second = store.get("t1").turns[1].provenance
    assert isinstance(second, Recorded) and second.fingerprint  # the step's content hash
    assert second.model_copy(update={"fingerprint": None}) == Recorded(
        dataset="test", row_id="t1", turn=2
    )
    replaced = trajectory("t1", turns=1).model_copy(
        update={"turns": [Turn(action="new", observation=None, predicted="p")]}
    )
    store.upsert(replaced)
    assert store.get("t1") == with_provenance(replaced)
    assert store.exists("t1") and not store.exists("t2")
    with pytest.raises(NotFoundError):
        store.get("t2")


def test_listing_counts_and_streaming(database) -> None:
    store = TrajectoryStore(database.session_factory)
    items = [
        trajectory(f"t{i:03d}", "web" if i % 3 == 0 else "terminal", turns=i % 4)
        for i in range(250)
    ]
    assert store.upsert_many(items, batch_size=64) == 250
    assert store.count() == 250 and store.count(domain="web") == 84
    assert store.counts_by_domain() == {"terminal": 166, "web": 84}
    listed = store.list_trajectories(domain="terminal", limit=3, offset=1)
    assert [(s.id, s.turns) for s in listed] == [("t002", 2), ("t004", 0), ("t005", 1)]
    streamed = list(store.iter_trajectories(domain="web"))
    assert [t.id for t in streamed] == [t.id for t in items if t.domain == "web"]
    assert streamed[5] == with_provenance(items[15])


def test_delete_keeps_sessions(database) -> None:
    store = TrajectoryStore(database.session_factory)
    sessions = SessionStore(database.session_factory)
    store.upsert(trajectory("t1"))
    sid = SessionWriter(sessions, base_trajectory_id="t1").add("ls").session_id
    store.delete("t1")
    assert store.count() == 0
    assert sessions.load_session(sid).base_trajectory_id is None
    with pytest.raises(NotFoundError):
        store.delete("t1")
