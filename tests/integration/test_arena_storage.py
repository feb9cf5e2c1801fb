"""Votes, reports and agreement on real databases (SQLite, and PostgreSQL when configured)."""

from __future__ import annotations

import random

import pytest

from backend.compare.report import ALL, arena_report
from backend.errors import ConflictError
from backend.recording import NewSession, StepInput, StoredScore
from backend.types import HistoryMode, SamplingParams
from backend.verdicts import Verdict
from storage.agreement import agreement
from storage.annotations import AnnotationInput, AnnotationQueue, AnnotationStore, Ratings
from storage.arena import ArenaStore
from storage.judging import items_to_judge
from storage.sessions import SessionStore
from tests.support.postgres import fake_prediction
from tests.support.sessions import source_of

DIMS = ("format", "factuality", "consistency", "realism", "quality")


def step(
    store: SessionStore,
    kind: str,
    domain: str,
    engine: str,
    real: str | None,
    origin: str | None = "recorded",
) -> tuple[int, int]:
    """One stored step with one prediction; (step id, prediction id)."""
    target = NewSession(
        domain=domain,
        history_mode=HistoryMode.TEACHER_FORCED,
        params=SamplingParams(),
        kind=kind,
        initial_state="S0",
    )
    model = f"baseline:{engine}" if engine in ("oracle", "persistence") else "m"
    prediction = fake_prediction(f"{engine} says", engine=engine, model=model)
    source = source_of(origin) if real is not None else None
    step = StepInput("act", real, origin, prediction, provenance=source)  # type: ignore[arg-type]
    record = store.record(target, step)
    assert record.prediction_id is not None
    return record.step_id, record.prediction_id


def test_which_one_is_real_offers_each_item_to_overlap_people_and_counts(database) -> None:
    sessions = SessionStore(database.session_factory)
    _, shown = step(sessions, "bench", "web", "transformers", "the real page")
    step(sessions, "bench", "web", "oracle", "the real page")  # the truth itself: never shown
    step(sessions, "bench", "web", "transformers", None, None)  # no truth to compare with
    step(sessions, "bench", "web", "transformers", "edited", "annotator")  # not reality
    store = ArenaStore(database.session_factory, overlap=2, rng=random.Random(3))
    item = store.next_real("ann")
    assert item is not None and item.prediction_id == shown
    assert set(item.sides) == {"the real page", "transformers says"}
    assert store.vote_real(item, "ann", item.real_side, 3) is True
    with pytest.raises(ConflictError):
        store.vote_real(item, "ann", "cannot_tell", 1)
    assert store.next_real("ann") is None  # one person never gets an item twice
    second = store.next_real("bob")
    assert second is not None and second.prediction_id == shown
    store.vote_real(second, "bob", "cannot_tell", 1)
    assert store.next_real("cy") is None and store.count_real("cy") == 0  # overlap 2 reached
    report = arena_report(store.real_counts(), [], [], rounds=0)
    pooled = next(r for r in report.real if r.domain == ALL)
    assert (pooled.rate.votes, pooled.rate.spotted, pooled.rate.cannot_tell) == (2, 1, 1)
    assert pooled.rate.rate == 0.25


def test_arena_battles_votes_judge_and_leaderboard(database) -> None:
    sessions = SessionStore(database.session_factory)
    step_id, first = step(sessions, "arena", "terminal", "transformers", "real out")
    hot = SamplingParams(temperature=1.2)
    second = sessions.add_prediction(
        step_id, fake_prediction("other", "transformers", "m"), params=hot
    )
    step(sessions, "bench", "terminal", "transformers", "real out")  # one prediction: no battle
    store = ArenaStore(database.session_factory, overlap=1)
    pair = store.open_pair("ann", "terminal")
    assert pair is not None and (pair.prediction_a, pair.prediction_b) == (first, second)
    assert (pair.contender_a, pair.contender_b) == ("transformers/m T=0.6", "transformers/m T=1.2")
    assert store.open_pair("ann", "web") is None
    store.vote_pair(pair, "ann", "b")
    assert store.open_pair("bob") is None  # overlap 1: one person per battle
    assert [p.prediction_a for p in store.pairs_to_judge("judge:x")] == [first]
    store.vote_pair(pair, "judge:x", "b", source="judge")
    assert store.pairs_to_judge("judge:x") == []
    report = arena_report(
        store.real_counts(), store.battle_counts(), store.judge_human_counts(), rounds=20
    )
    board = report.leaderboard("terminal", "human")
    assert board is not None and board.ratings[0].contender == "transformers/m T=1.2"
    assert report.judge_vs_people[0].share == 1.0


def test_agreement_joins_judge_scores_with_ratings(database) -> None:
    sessions = SessionStore(database.session_factory)
    ids = [step(sessions, "bench", "os", "transformers", f"real {i}")[1] for i in range(2)]
    notes = AnnotationStore(database.session_factory)
    # Ratings (format only varies): ann 1 and 2, bob 1 and 2; judge 1 and 1.
    for name, values in (("ann", (1, 2)), ("bob", (1, 2))):
        for pid, value in zip(ids, values, strict=True):
            ratings = Ratings(**dict.fromkeys(DIMS, 3) | {"format": value})
            fixed = f"Window\tfix {name}\t0,0\t9,9"  # an OS truth parses (a11y table)
            notes.submit(
                pid,
                name,
                AnnotationInput(
                    verdict=Verdict.REJECT, corrected_observation=fixed, ratings=ratings
                ),
            )
    for pid in ids:
        sessions.add_scores(
            pid, [StoredScore(f"judge.{d}", "v1", 1.0 if d == "format" else 5.0) for d in DIMS]
        )
    report = agreement(database.session_factory)
    row = next(d for d in report.dimensions if d.domain == "os" and d.dimension == "format")
    # Judge vs people: (1,1) twice, (1,2) twice: exact 1/2. People agree perfectly: kappa 1.
    assert (row.judge_human.pairs, row.judge_human.exact) == (4, 0.5)
    assert (row.human_human.pairs, row.human_human.kappa, row.alpha) == (2, 1.0, 1.0)
    cells = {(c.judge, c.human): c.count for c in report.confusion if c.domain == "os"}
    assert cells == {("accept", "reject"): 4}  # judge total (1 + 4 * 5) / 5 = 4.2: accept
    # People's mean rating is (1 + 4 * 3) / 5 = 2.6 on the first prediction: the widest gap.
    assert report.worst[0].prediction_id == ids[0]
    assert report.worst[0].gap == pytest.approx(1.6)
    assert items_to_judge(database.session_factory, domain="os") == []  # all judged


def test_the_queue_keeps_an_item_until_overlap_annotators_did_it(database) -> None:
    sessions = SessionStore(database.session_factory)
    _, pid = step(sessions, "bench", "swe", "transformers", "real")
    queue = AnnotationQueue(database.session_factory, overlap=2)
    notes = AnnotationStore(database.session_factory)
    unsure = AnnotationInput(verdict=Verdict.CANNOT_TELL)
    for name in ("ann", "bob"):
        item = queue.claim_next(name)
        assert item is not None and item.prediction_id == pid
        notes.submit(pid, name, unsure)
        assert queue.claim_next(name) is None  # never the same item twice
    assert queue.claim_next("cy") is None  # two annotators did it: it left the queue
    assert AnnotationQueue(database.session_factory).claim_next("cy") is not None  # no limit


def test_which_one_is_real_never_offers_an_item_voted_on_through_another_prediction(
    database,
) -> None:
    sessions = SessionStore(database.session_factory)
    step_id, first = step(sessions, "bench", "web", "transformers", "the real page")
    # A second prediction of the same step by the same model: the same item for the vote rule.
    again = sessions.add_prediction(
        step_id, fake_prediction("transformers says", engine="transformers", model="m")
    )
    other_step, other = step(sessions, "bench", "web", "transformers", "another real page")
    store = ArenaStore(database.session_factory, overlap=3, rng=random.Random(1))
    voted = store.real_item(first, "A")
    store.vote_real(voted, "ann", "A", 2)
    offered = store.next_real("ann")
    assert offered is not None and offered.prediction_id == other  # not `again`
    assert store.count_real("ann") == 1
    store.vote_real(offered, "ann", "B", 1)
    assert store.next_real("ann") is None and store.count_real("ann") == 0
    assert store.next_real("bob") is not None and store.count_real("bob") == 3
    assert again != first and other_step != step_id
