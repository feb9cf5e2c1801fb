"""Recorder storage: sessions, steps, predictions, scores and branches on real databases."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from backend.errors import BadInputError, NotFoundError
from backend.scoring import MetricResult
from backend.types import HistoryMode, Prediction, SamplingParams
from storage.db import session_scope
from storage.models import PredictionRow, ScoreRow, StepRow
from storage.sessions import SessionStore

PARAMS = SamplingParams(temperature=0.2, seed=7).model_dump()


def new_session(store: SessionStore, **kwargs: object) -> int:
    return store.create_session(
        "terminal", "fake", "fake-model", PARAMS, "teacher_forced", **kwargs
    )


def add(
    store: SessionStore, session_id: int, n: int, make_prediction: Callable[..., Prediction]
) -> list[int]:
    return [
        store.add_step(
            session_id,
            f"action {i}",
            f"real {i}",
            "recorded",
            make_prediction(f"predicted {i}"),
            [MetricResult(name="exact", version=1, value=0.5, details={"i": i})],
        ).step_id
        for i in range(n)
    ]


def test_step_round_trip(database, make_prediction) -> None:
    store = SessionStore(database.session_factory)
    sid = new_session(store, owner="ada", system_prompt="You are a terminal.", initial_state="$")
    prediction = make_prediction("total 0")
    score = MetricResult(name="line_f1", version=2, value=0.75, details={"matched": 3})
    record = store.add_step(sid, "ls", "total 0\n$", "live", prediction, [score])
    assert record.index == 0 and record.prediction_id is not None

    loaded = store.load_session(sid)
    assert (loaded.domain, loaded.owner, loaded.history_mode) == (
        "terminal",
        "ada",
        HistoryMode.TEACHER_FORCED,
    )
    assert loaded.system_prompt == "You are a terminal." and loaded.initial_state == "$"
    assert loaded.sampling() == SamplingParams(temperature=0.2, seed=7)
    step = loaded.steps[0]
    assert (step.step_id, step.action, step.real_observation, step.origin) == (
        record.step_id,
        "ls",
        "total 0\n$",
        "live",
    )
    stored = step.predictions[0]
    assert stored.prediction_id == record.prediction_id
    assert stored.prediction == prediction
    assert stored.params == PARAMS and stored.history_mode == "teacher_forced"
    assert [(s.name, s.version, s.value, dict(s.details)) for s in stored.scores] == [
        ("line_f1", "2", 0.75, {"matched": 3})
    ]
    assert stored.created_at.tzinfo is UTC and loaded.created_at.tzinfo is UTC


def test_steps_without_prediction_and_bad_input(database) -> None:
    store = SessionStore(database.session_factory)
    sid = new_session(store)
    record = store.add_step(sid, "ls", "out", "recorded")
    assert record.prediction_id is None
    with pytest.raises(BadInputError, match="origin"):
        store.add_step(sid, "ls", "out")
    with pytest.raises(BadInputError, match="valid"):
        store.add_step(sid, "ls", "out", "dreamed")
    with pytest.raises(NotFoundError):
        store.add_step(sid + 100, "ls")
    with pytest.raises(NotFoundError):
        store.load_session(sid + 100)
    store.set_real_observation(store.add_step(sid, "pwd").step_id, "/root", "annotator")
    assert [(s.index, s.real_observation, s.origin) for s in store.load_session(sid).steps] == [
        (0, "out", "recorded"),
        (1, "/root", "annotator"),
    ]


def test_history_for_continuing(database, make_prediction) -> None:
    store = SessionStore(database.session_factory)
    sid = new_session(store)
    add(store, sid, 2, make_prediction)
    store.add_step(sid, "action 2")
    turns = store.load_session(sid).history()
    assert [(t.action, t.observation, t.predicted) for t in turns] == [
        ("action 0", "real 0", "predicted 0"),
        ("action 1", "real 1", "predicted 1"),
        ("action 2", None, None),
    ]


def test_more_predictions_and_score_replacement(database, make_prediction) -> None:
    store = SessionStore(database.session_factory)
    sid = new_session(store)
    step_id = add(store, sid, 1, make_prediction)[0]
    other = store.add_prediction(
        step_id, make_prediction("other", engine="oracle"), history_mode="blind"
    )
    store.add_scores(other, [MetricResult(name="exact", version=1, value=0.0)])
    store.add_scores(
        other,
        [
            MetricResult(name="exact", version=1, value=1.0),
            MetricResult(name="exact", version=2, value=0.5),
        ],
    )
    step = store.load_session(sid).steps[0]
    assert [p.prediction.engine for p in step.predictions] == ["fake", "oracle"]
    assert step.prediction is not None and step.prediction.prediction.engine == "fake"
    assert step.predictions[1].history_mode == "blind"
    assert sorted((s.version, s.value) for s in step.predictions[1].scores) == [
        ("1", 1.0),
        ("2", 0.5),
    ]
    with pytest.raises(NotFoundError):
        store.add_prediction(step_id + 100, make_prediction("x"))


def test_branches_share_steps(database, make_prediction) -> None:
    store = SessionStore(database.session_factory)
    root = new_session(store)
    root_steps = add(store, root, 3, make_prediction)
    branch = store.branch_session(root, 2, engine="oracle", owner="bo")
    assert [s.step_id for s in store.load_session(branch).steps] == root_steps[:2]
    record = store.add_step(branch, "branch action", prediction=make_prediction("b"))
    assert record.index == 2
    loaded = store.load_session(branch)
    assert (loaded.engine, loaded.owner, loaded.parent_session_id, loaded.branched_at) == (
        "oracle",
        "bo",
        root,
        2,
    )
    assert [s.action for s in loaded.steps] == ["action 0", "action 1", "branch action"]
    assert [s.step_id for s in store.load_session(root).steps] == root_steps

    twig = store.branch_session(branch, 1)
    assert [s.action for s in store.load_session(twig).steps] == ["action 0"]
    deep = store.branch_session(branch, 3)
    assert [s.action for s in store.load_session(deep).steps] == [
        "action 0",
        "action 1",
        "branch action",
    ]
    with pytest.raises(BadInputError, match="between 0 and 3"):
        store.branch_session(branch, 4)
    with pytest.raises(NotFoundError):
        store.branch_session(root + 100, 0)


def test_listing_and_cascading_delete(database, make_prediction) -> None:
    store = SessionStore(database.session_factory)
    first = new_session(store, owner="ada")
    add(store, first, 2, make_prediction)
    second = store.create_session("web", "fake", "m", {}, "closed_loop")
    add(store, second, 1, make_prediction)
    branch = store.branch_session(first, 1)
    summaries = store.list_sessions()
    assert [s.id for s in summaries] == [branch, second, first]
    assert {s.id: s.steps for s in summaries} == {first: 2, second: 1, branch: 0}
    assert [s.id for s in store.list_sessions(domain="web")] == [second]
    assert {s.id for s in store.list_sessions(owner="ada")} == {first, branch}

    store.delete_session(first)
    assert [s.id for s in store.list_sessions()] == [second]
    with session_scope(database.session_factory) as session:
        assert session.scalar(select(StepRow).where(StepRow.session_id == first)) is None
        assert len(session.scalars(select(PredictionRow)).all()) == 1
        assert len(session.scalars(select(ScoreRow)).all()) == 1
    with pytest.raises(NotFoundError):
        store.delete_session(first)


def test_foreign_keys_are_enforced(database) -> None:
    with pytest.raises(IntegrityError), session_scope(database.session_factory) as session:
        session.add(StepRow(session_id=12345, index=0, action="ls"))


def test_judge_verdicts_are_stored_as_scores(database, make_prediction) -> None:
    from backend.scoring.judge import JudgeResult
    from storage.convert import judge_scores

    store = SessionStore(database.session_factory)
    sid = new_session(store)
    record = store.add_step(sid, "ls", "out", "live", make_prediction("out"))
    verdict = dict(raw="", finish_reason="stop", judge_engine="openai", judge_model="judge-m")
    verdict |= dict(prompt_version="p3", temperature=0.0, attempts=1, total=4.0, score_100=75.0)
    scores = {"format": 5, "factuality": 4, "consistency": 0, "realism": 4, "quality": 3}
    store.add_scores(
        record.prediction_id, judge_scores(JudgeResult(scores=scores, failed=False, **verdict))
    )
    failed = JudgeResult(scores={}, failed=True, **verdict)
    assert judge_scores(failed) == []
    stored = store.load_session(sid).steps[0].predictions[0].scores
    assert [(s.name, s.version, s.value) for s in stored] == [
        ("judge.format", "p3", 5.0),
        ("judge.factuality", "p3", 4.0),
        ("judge.realism", "p3", 4.0),
        ("judge.quality", "p3", 3.0),
    ]
    assert stored[0].details["judge_model"] == "judge-m"
