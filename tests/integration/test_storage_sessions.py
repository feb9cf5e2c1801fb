"""The recorder on real databases: sessions, steps, predictions, prompts, scores and branches."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from backend.errors import BadInputError, NotFoundError
from backend.recording import NewSession, StepInput
from backend.scoring import MetricResult
from backend.scoring.judge import JudgeResult, judge_scores
from backend.types import ChatMessage, HistoryMode, Prediction, PromptContext, SamplingParams
from storage.db import session_scope
from storage.models import PredictionRow, PromptTextRow, ScoreRow, SessionRow, StepRow
from storage.sessions import SessionStore
from tests.support.sessions import SessionWriter, source_of

PARAMS = SamplingParams(temperature=0.2, seed=7)


def writer(store: SessionStore, **kwargs: object) -> SessionWriter:
    return SessionWriter(store, params=PARAMS, **kwargs)


def add(session: SessionWriter, n: int, make_prediction: Callable[..., Prediction]) -> list[int]:
    return [
        session.add(
            f"action {i}",
            f"real {i}",
            "recorded",
            make_prediction(f"predicted {i}"),
            [MetricResult(name="exact", version=1, value=0.5, details={"i": i})],
        ).step_id
        for i in range(n)
    ]


def count(database, model) -> int:
    with session_scope(database.session_factory) as session:
        return session.scalar(select(func.count()).select_from(model)) or 0


def test_step_round_trip(database, make_prediction) -> None:
    store = SessionStore(database.session_factory)
    context = PromptContext(task="list files", tools=[{"name": "ls"}])
    session = writer(
        store, owner="ada", system_prompt="You are a terminal.", initial_state="$", context=context
    )
    prediction = make_prediction("total 0").model_copy(
        update={
            "action": "ls",
            "messages": [
                ChatMessage(role="system", content="You are a terminal."),
                ChatMessage(role="user", content="ls"),
            ],
        }
    )
    score = MetricResult(name="line_f1", version=2, value=0.75, details={"matched": 3})
    record = session.add("ls", "total 0\n$", "live", prediction, [score])
    assert record.index == 0 and record.prediction_id is not None

    loaded = store.load_session(record.session_id)
    assert (loaded.domain, loaded.owner, loaded.history_mode, loaded.kind) == (
        "terminal",
        "ada",
        HistoryMode.TEACHER_FORCED,
        "playground",
    )
    assert loaded.system_prompt == "You are a terminal." and loaded.initial_state == "$"
    assert loaded.context == context and loaded.task == "list files"
    assert loaded.sampling() == PARAMS
    step = loaded.steps[0]
    assert (step.step_id, step.action, step.real_observation, step.origin) == (
        record.step_id,
        "ls",
        "total 0\n$",
        "live",
    )
    stored = step.predictions[0]
    assert stored.prediction_id == record.prediction_id
    assert stored.prediction == prediction  # the exact messages included
    assert stored.params == PARAMS.model_dump() and stored.history_mode == "teacher_forced"
    assert [(s.name, s.version, s.value, dict(s.details)) for s in stored.scores] == [
        ("line_f1", "2", 0.75, {"matched": 3})
    ]
    assert stored.created_at.tzinfo is UTC and loaded.created_at.tzinfo is UTC


def test_prompt_texts_are_stored_once(database, make_prediction) -> None:
    store = SessionStore(database.session_factory)
    session = writer(store)
    system = ChatMessage(role="system", content="S" * 10_000)
    chat: list[ChatMessage] = [system]
    for i in range(4):
        chat = [*chat, ChatMessage(role="user", content=f"action {i}")]
        prediction = make_prediction(f"obs {i}").model_copy(update={"messages": chat})
        session.add(f"action {i}", f"obs {i}", "recorded", prediction)
        chat = [*chat, ChatMessage(role="assistant", content=f"obs {i}")]
    # 1 system prompt, 4 actions, 3 observations: each text once, however many chats hold it.
    assert count(database, PromptTextRow) == 8
    steps = store.load_session(session.session_id).steps
    assert [len(s.predictions[0].prediction.messages) for s in steps] == [2, 4, 6, 8]
    assert steps[3].predictions[0].prediction.messages[0] == system


def test_a_session_exists_only_once_a_step_commits(database, make_prediction) -> None:
    store = SessionStore(database.session_factory)
    new = NewSession(domain="terminal", history_mode=HistoryMode.BLIND, params=PARAMS, kind="cli")
    with pytest.raises(BadInputError, match="origin"):
        store.record(new, StepInput("ls", "out", None, make_prediction("out")))
    assert count(database, SessionRow) == 0
    record = store.record(new, StepInput("pwd", None, None, make_prediction("/")))
    loaded = store.load_session(record.session_id)
    assert (loaded.kind, loaded.engine, loaded.model) == ("cli", "fake", "fake-model")


def test_a_recorded_prefix_is_stored_before_the_step(database, make_prediction) -> None:
    from backend.types import Turn

    store = SessionStore(database.session_factory)
    session = writer(store)
    prefix = [Turn(action="a0", observation="o0"), Turn(action="a1", observation=None)]
    record = session.add("a2", prediction=make_prediction("p2"), prefix=prefix)
    assert record.index == 2
    steps = store.load_session(record.session_id).steps
    assert [(s.action, s.real_observation, s.origin, len(s.predictions)) for s in steps] == [
        ("a0", "o0", "recorded", 0),
        ("a1", None, None, 0),
        ("a2", None, None, 1),
    ]


def test_steps_without_prediction_and_bad_input(database) -> None:
    store = SessionStore(database.session_factory)
    session = writer(store)
    record = session.add("ls", "out", "recorded")
    assert record.prediction_id is None
    with pytest.raises(BadInputError, match="origin"):
        session.add("ls", "out")
    with pytest.raises(BadInputError, match="valid"):
        session.add("ls", "out", "dreamed")
    with pytest.raises(NotFoundError):
        store.record(record.session_id + 100, StepInput("ls"))
    with pytest.raises(NotFoundError):
        store.load_session(record.session_id + 100)
    pwd = session.add("pwd").step_id
    with pytest.raises(BadInputError, match="provenance"):
        store.set_real_observation(pwd, "/root", "annotator", None)
    store.set_real_observation(pwd, "/root", "annotator", source_of("annotator"))
    steps = store.load_session(record.session_id).steps
    assert [(s.index, s.real_observation, s.origin) for s in steps] == [
        (0, "out", "recorded"),
        (1, "/root", "annotator"),
    ]


def test_history_for_continuing(database, make_prediction) -> None:
    store = SessionStore(database.session_factory)
    session = writer(store, initial_state="$ ")
    add(session, 2, make_prediction)
    session.add("action 2")
    loaded = store.load_session(session.session_id)
    assert [(t.action, t.observation, t.predicted) for t in loaded.history()] == [
        ("action 0", "real 0", "predicted 0"),
        ("action 1", "real 1", "predicted 1"),
        ("action 2", None, None),
    ]
    request = loaded.request('[{"keystrokes": "ls\\n", "duration": 1}]')
    assert (request.history_mode, request.params, request.initial_state) == (
        HistoryMode.TEACHER_FORCED,
        PARAMS,
        "$ ",
    )
    assert request.history == loaded.history()


def test_more_predictions_and_score_replacement(database, make_prediction) -> None:
    store = SessionStore(database.session_factory)
    session = writer(store)
    step_id = add(session, 1, make_prediction)[0]
    other = store.add_prediction(
        step_id, make_prediction("other", engine="oracle"), history_mode=HistoryMode.BLIND
    )
    store.add_scores(other, [MetricResult(name="exact", version=1, value=0.0)])
    store.add_scores(
        other,
        [
            MetricResult(name="exact", version=1, value=1.0),
            MetricResult(name="exact", version=2, value=0.5),
        ],
    )
    step = store.load_session(session.session_id).steps[0]
    assert [p.prediction.engine for p in step.predictions] == ["fake", "oracle"]
    assert step.prediction is not None and step.prediction.prediction.engine == "fake"
    assert step.predictions[1].history_mode == "blind"
    assert sorted((s.version, s.value) for s in step.predictions[1].scores) == [
        ("1", 1.0),
        ("2", 0.5),
    ]
    with pytest.raises(NotFoundError):
        store.add_prediction(step_id + 100, make_prediction("x"))


def branch_of(store: SessionStore, parent: int, at: int, make_prediction, **changes: object) -> int:
    """A branch of `parent` keeping `at` steps, created with one new step."""
    new = NewSession(
        domain="terminal",
        history_mode=HistoryMode.TEACHER_FORCED,
        params=PARAMS,
        parent_session_id=parent,
        branched_at=at,
        **changes,  # type: ignore[arg-type]
    )
    record = store.record(new, StepInput("branch action", prediction=make_prediction("b")))
    assert record.index == at
    return record.session_id


def test_branches_share_steps(database, make_prediction) -> None:
    store = SessionStore(database.session_factory)
    root = writer(store)
    root_steps = add(root, 3, make_prediction)
    branch = branch_of(store, root.session_id, 2, make_prediction, engine="oracle", owner="bo")
    loaded = store.load_session(branch)
    assert [s.step_id for s in loaded.steps][:2] == root_steps[:2]
    assert (loaded.engine, loaded.owner, loaded.parent_session_id, loaded.branched_at) == (
        "oracle",
        "bo",
        root.session_id,
        2,
    )
    assert [s.action for s in loaded.steps] == ["action 0", "action 1", "branch action"]
    assert [s.step_id for s in store.load_session(root.session_id).steps] == root_steps

    twig = branch_of(store, branch, 1, make_prediction)
    assert [s.action for s in store.load_session(twig).steps] == ["action 0", "branch action"]
    deep = branch_of(store, branch, 3, make_prediction)
    assert [s.action for s in store.load_session(deep).steps] == [
        "action 0",
        "action 1",
        "branch action",
        "branch action",
    ]
    with pytest.raises(BadInputError, match="between 0 and 3"):
        branch_of(store, branch, 4, make_prediction)
    with pytest.raises(NotFoundError):
        branch_of(store, root.session_id + 100, 0, make_prediction)


def test_listing_and_cascading_delete(database, make_prediction) -> None:
    store = SessionStore(database.session_factory)
    first = writer(store, owner="ada")
    add(first, 2, make_prediction)
    second = writer(store, domain="web", history_mode="closed_loop")
    add(second, 1, make_prediction)
    branch = branch_of(store, first.session_id, 1, make_prediction, owner="ada")
    summaries = store.list_sessions()
    assert [s.id for s in summaries] == [branch, second.session_id, first.session_id]
    assert {s.id: s.steps for s in summaries} == {
        first.session_id: 2,
        second.session_id: 1,
        branch: 1,
    }
    assert [s.id for s in store.list_sessions(domain="web")] == [second.session_id]
    assert {s.id for s in store.list_sessions(owner="ada")} == {first.session_id, branch}

    store.delete_session(first.session_id)
    assert [s.id for s in store.list_sessions()] == [second.session_id]
    with session_scope(database.session_factory) as session:
        gone = select(StepRow).where(StepRow.session_id == first.session_id)
        assert session.scalar(gone) is None
        assert len(session.scalars(select(PredictionRow)).all()) == 1
        assert len(session.scalars(select(ScoreRow)).all()) == 1
    with pytest.raises(NotFoundError):
        store.delete_session(first.session_id)


def test_foreign_keys_are_enforced(database) -> None:
    with pytest.raises(IntegrityError), session_scope(database.session_factory) as session:
        session.add(StepRow(session_id=12345, index=0, action="ls"))


def test_judge_verdicts_are_stored_as_scores(database, make_prediction) -> None:
    store = SessionStore(database.session_factory)
    session = writer(store)
    record = session.add("ls", "out", "live", make_prediction("out"))
    verdict = dict(raw="", finish_reason="stop", judge_engine="openai", judge_model="judge-m")
    verdict |= dict(prompt_version="p3", temperature=0.0, attempts=1, total=4.0, score_100=75.0)
    scores = {"format": 5, "factuality": 4, "consistency": 0, "realism": 4, "quality": 3}
    result = JudgeResult(scores=scores, failed=False, weaknesses=["stale"], **verdict)
    assert record.prediction_id is not None
    store.add_scores(record.prediction_id, judge_scores(result))
    failed = JudgeResult(scores={}, failed=True, **verdict)
    assert judge_scores(failed) == []
    stored = store.load_session(record.session_id).steps[0].predictions[0].scores
    assert [(s.name, s.version, s.value) for s in stored] == [
        ("judge.format", "p3", 5.0),
        ("judge.factuality", "p3", 4.0),
        ("judge.realism", "p3", 4.0),
        ("judge.quality", "p3", 3.0),
    ]
    assert stored[0].details["judge_model"] == "judge-m"
    assert stored[0].details["weaknesses"] == ["stale"]
