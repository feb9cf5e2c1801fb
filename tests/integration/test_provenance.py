"""Provenance on every observation: SQL refuses an observation without its source, and each
writer path (import, live run, step, record answer, migration of older rows) stores the right one.

Real databases (SQLite, and PostgreSQL where the suite has one), the real stores and simulator.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import insert, select, text
from sqlalchemy.exc import IntegrityError

from app.context import AppContext
from backend.engines.baselines import BaselineEngine, previous_observation
from backend.envs.live.run import LiveRun
from backend.errors import BadInputError
from backend.grounding.fingerprint import recording_path
from backend.grounding.record import RecordBook
from backend.provenance import Live, Predicted, Recorded, parse_provenance, stored
from backend.recording import NewSession, StepInput
from backend.simulate import Simulator, exact_prediction
from backend.stepping import record_prediction, run_step
from backend.types import HistoryMode, SamplingParams, SimRequest, Trajectory, Turn
from storage.db import Database, session_scope
from storage.migrate import upgrade
from storage.models import Base, PredictionRow, StepRow, TrajectoryRow, TurnRow
from storage.sessions import SessionStore
from storage.trajectories import TrajectoryStore
from storage.transitions import TransitionStore
from tests.support.cli import run
from tests.support.live import live_config, skip_unless_live
from tests.support.postgres import fake_prediction

CAT = json.dumps([{"keystrokes": "cat plan.txt\n", "duration": 0.1}])
PLAN = "cat plan.txt\nship it\nuser@host:~$ "
LS = json.dumps([{"keystrokes": "ls\n", "duration": 0.1}])


def recording(tid: str = "rec/plan", source: str = "bundled", **metadata: object) -> Trajectory:
    return Trajectory(
        id=tid,
        domain="terminal",
        initial_state="user@host:~$ ",
        turns=[Turn(action=CAT, observation=PLAN), Turn(action=LS, observation="plan.txt\n$ ")],
        source=source,
        licence="MIT",
        metadata=dict(metadata),
    )


def new_session(**extra: object) -> NewSession:
    return NewSession(
        "terminal", HistoryMode.TEACHER_FORCED, SamplingParams(), engine="e", model="m", **extra
    )


def prompt_engine() -> Simulator:
    from backend.domains.prompts import PromptLibrary

    return Simulator(BaselineEngine("persistence", previous_observation), PromptLibrary())


# -- the contract: SQL itself refuses an observation without its source ----------------------


def test_sql_refuses_a_turn_observation_without_provenance(database: Database) -> None:
    with session_scope(database.session_factory) as session:
        session.add(TrajectoryRow(id="t", domain="terminal", source="s", licence="MIT"))
    turns = Base.metadata.tables["turn"]
    with pytest.raises(IntegrityError), database.engine.begin() as connection:
        connection.execute(
            insert(turns).values(trajectory_id="t", index=0, action="a", observation="o")
        )
    with database.engine.begin() as connection:  # a turn without an observation needs none
        connection.execute(insert(turns).values(trajectory_id="t", index=0, action="a"))


def test_sql_refuses_a_real_observation_of_a_step_without_provenance(database: Database) -> None:
    store = SessionStore(database.session_factory)
    record = store.record(new_session(), StepInput("a"))
    steps = Base.metadata.tables["step"]
    with pytest.raises(IntegrityError), database.engine.begin() as connection:
        connection.execute(
            insert(steps).values(
                session_id=record.session_id,
                index=1,
                action="b",
                real_observation="o",
                origin="recorded",
                created_at=datetime.now(UTC),
            )
        )
    with pytest.raises(IntegrityError), database.engine.begin() as connection:
        connection.execute(
            text("UPDATE step SET real_observation = 'o', origin = 'live' WHERE id = :id"),
            {"id": record.step_id},
        )


def test_sql_refuses_a_prediction_without_provenance(database: Database) -> None:
    store = SessionStore(database.session_factory)
    record = store.record(new_session(), StepInput("a"))
    predictions = Base.metadata.tables["prediction"]
    with pytest.raises(IntegrityError), database.engine.begin() as connection:
        connection.execute(
            insert(predictions).values(
                step_id=record.step_id,
                observation="o",
                raw_text="o",
                finish_reason="stop",
                engine="e",
                model="m",
                diagnostics={},
                params={},
                history_mode="teacher_forced",
                created_at=datetime.now(UTC),
            )
        )


def test_the_recorder_refuses_an_observation_without_its_source(database: Database) -> None:
    store = SessionStore(database.session_factory)
    with pytest.raises(BadInputError, match="provenance"):
        store.record(new_session(), StepInput("a", "o", "recorded"))
    # An exact answer must be given the reality it answered with: it has no engine to name.
    exact = exact_prediction("a", "o", "record", "rec#1")
    assert exact.provenance is None
    with pytest.raises(BadInputError, match="provenance"):
        store.record(new_session(), StepInput("a", prediction=exact))
    # A model's answer knows its own: the engine and model.
    made = fake_prediction("o", engine="transformers", model="SmolLM2")
    assert made.provenance == Predicted(engine="transformers", model="SmolLM2")


# -- each writer path stores the right kind --------------------------------------------------


def test_an_import_stores_each_turn_as_a_recording_of_its_file(database: Database) -> None:
    store = TrajectoryStore(database.session_factory)
    store.upsert(recording(source="agentworldbench", file="rows.jsonl"))
    with session_scope(database.session_factory) as session:
        rows = session.scalars(select(TurnRow).order_by(TurnRow.index)).all()
        values = [row.provenance for row in rows]
    # Each turn's content fingerprint (what the leakage guard compares) is kept with it.
    fingerprints = recording_path(recording())
    assert values == [
        stored(
            Recorded(
                dataset="agentworldbench",
                file="rows.jsonl",
                row_id="rec/plan",
                turn=number,
                fingerprint=fingerprints[number - 1],
            )
        )
        for number in (1, 2)
    ]
    assert store.get("rec/plan").turns[1].provenance == parse_provenance(values[1])


def test_a_recorded_step_and_a_model_prediction_name_their_sources(database: Database) -> None:
    trajectories, sessions = (
        TrajectoryStore(database.session_factory),
        SessionStore(database.session_factory),
    )
    trajectories.upsert(recording())
    from ui.session import PlaySession

    play = PlaySession.from_trajectory(trajectories.get("rec/plan"), 1)
    request = play.request(LS, HistoryMode.TEACHER_FORCED, SamplingParams())
    target = play.new_session("playground", "ann", HistoryMode.TEACHER_FORCED, SamplingParams())
    events = list(run_step(prompt_engine(), sessions, target, request, play.history()))
    outcome = events[-1]
    loaded = sessions.load_session(outcome.session_id)
    prefix, step = loaded.steps
    fingerprints = recording_path(recording())
    assert prefix.provenance == Recorded(
        dataset="bundled", row_id="rec/plan", turn=1, fingerprint=fingerprints[0]
    )
    assert step.provenance == Recorded(
        dataset="bundled", row_id="rec/plan", turn=2, fingerprint=fingerprints[1]
    )
    made = step.predictions[0].prediction
    assert made.answered_by == "model"
    assert made.provenance == Predicted(engine="persistence", model="baseline:persistence")


def test_a_record_answer_carries_the_matched_transitions_own_source(database: Database) -> None:
    trajectories, sessions = (
        TrajectoryStore(database.session_factory),
        SessionStore(database.session_factory),
    )
    live_run = recording("live/terminal/1", source="live:terminal")
    at = datetime(2026, 12, 4, 18, 0, tzinfo=UTC)
    source = Live(sandbox="terminal", run="live/terminal/1", at=at)
    live_run = live_run.model_copy(
        update={"turns": [t.model_copy(update={"provenance": source}) for t in live_run.turns]}
    )
    trajectories.upsert(live_run)
    base = prompt_engine()
    simulator = Simulator(
        base.engine, base.prompts, record=RecordBook(TransitionStore(database.session_factory))
    )
    request = SimRequest(domain="terminal", initial_state="user@host:~$ ", action=CAT)
    answered = simulator.step(request)
    assert (answered.answered_by, answered.provenance) == ("record", source)
    outcome = record_prediction(sessions, new_session(), request, answered)
    stored_step = sessions.load_session(outcome.session_id).steps[0]
    assert stored_step.predictions[0].prediction.provenance == source


def test_older_rows_are_given_their_source_by_the_migration(database_url: str) -> None:
    upgrade(database_url, "0015")
    db = Database(database_url)
    try:
        with db.engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO trajectory (id, domain, task, source, licence, notes,"
                    " action_inferred, metadata, created_at, updated_at) VALUES"
                    " ('rec', 'terminal', '', 'bundled', 'MIT', '', false, :file, :at, :at),"
                    " ('live/terminal/9', 'terminal', '', 'live:terminal', 'MIT', '', false,"
                    " '{}', :at, :at)"
                ),
                {"at": datetime(2026, 12, 1), "file": json.dumps({"file": "r.jsonl"})},
            )
            connection.execute(
                text(
                    'INSERT INTO turn (trajectory_id, "index", action, observation) VALUES'
                    " ('rec', 0, 'a', 'o'), ('rec', 1, 'b', NULL), ('live/terminal/9', 0, 'a', 'o')"
                )
            )
            connection.execute(
                text(
                    "INSERT INTO session (id, domain, engine, model, params, history_mode, task,"
                    " kind, base_trajectory_id, complete, created_at, updated_at) VALUES"
                    " (1, 'terminal', 'e', 'm', '{}', 'teacher_forced', '', 'playground', 'rec',"
                    " true, :at, :at), (2, 'terminal', 'e', 'm', '{}', 'teacher_forced', '',"
                    " 'playground', 'live/terminal/9', true, :at, :at)"
                ),
                {"at": datetime(2026, 12, 1)},
            )
            connection.execute(
                text(
                    'INSERT INTO step (id, session_id, "index", action, real_observation,'
                    " origin, answered_by, created_at) VALUES"
                    " (1, 1, 0, 'a', 'o', 'recorded', NULL, :at),"
                    " (2, 2, 0, 'a', 'o', 'live', 'live', :at),"
                    " (3, 1, 1, 'b', NULL, NULL, 'model', :at)"
                ),
                {"at": datetime(2026, 12, 1, 9, 30)},
            )
            connection.execute(
                text(
                    "INSERT INTO prediction (step_id, observation, reasoning, raw_text,"
                    " finish_reason, prompt_tokens, completion_tokens, latency_s, engine, model,"
                    " diagnostics, params, history_mode, created_at) VALUES"
                    " (3, 'p', '', 'p', 'stop', 0, 0, 0, 'transformers', 'SmolLM2', '{}', '{}',"
                    " 'teacher_forced', :at),"
                    " (1, 'o', '', 'o', 'exact', 0, 0, 0, 'record', 'live/terminal/9#1', '{}',"
                    " '{}', 'teacher_forced', :at)"
                ),
                {"at": datetime(2026, 12, 1, 9, 30)},
            )
    finally:
        db.dispose()
    upgrade(database_url)
    db = Database(database_url)
    try:
        with session_scope(db.session_factory) as session:
            turns = [
                (row.trajectory_id, row.index, row.provenance)
                for row in session.scalars(select(TurnRow).order_by(TurnRow.id))
            ]
            steps = [
                row.provenance for row in session.scalars(select(StepRow).order_by(StepRow.id))
            ]
            made = [
                row.provenance
                for row in session.scalars(select(PredictionRow).order_by(PredictionRow.id))
            ]
    finally:
        db.dispose()
    assert turns == [
        ("rec", 0, stored(Recorded(dataset="bundled", file="r.jsonl", row_id="rec", turn=1))),
        ("rec", 1, stored(Recorded(dataset="bundled", file="r.jsonl", row_id="rec", turn=2))),
        ("live/terminal/9", 0, stored(Live(sandbox="terminal", run="live/terminal/9"))),
    ]
    assert steps[0] == stored(Recorded(dataset="bundled", file="r.jsonl", row_id="rec", turn=1))
    at = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
    assert steps[1] == stored(Live(sandbox="terminal", run="live/terminal/9", at=at))
    assert steps[2] is None  # no real observation, no source
    assert made[0] == stored(Predicted(engine="transformers", model="SmolLM2"))
    assert parse_provenance(made[1]) == Live(sandbox="terminal", run="live/terminal/9")


@skip_unless_live("terminal")
def test_a_live_run_keeps_each_turn_as_live(database: Database, tmp_path: Path) -> None:
    run = LiveRun("terminal", live_config(tmp_path))
    try:
        run.start("shell")
        run.act(json.dumps([{"keystrokes": "echo provenance\n", "duration": 0.3}]))
        trajectory = run.trajectory()
    finally:
        run.close()
    TrajectoryStore(database.session_factory).upsert(trajectory)
    (turn,) = TrajectoryStore(database.session_factory).get(trajectory.id).turns
    assert isinstance(turn.provenance, Live)
    assert (turn.provenance.sandbox, turn.provenance.run) == ("terminal", trajectory.id)
    assert turn.provenance.at is not None


# -- provenance reaches env info, bench rows and exports -------------------------------------


def test_env_info_names_the_source_of_the_answer_and_of_the_reference(database: Database) -> None:
    from backend.data.bundled import load_bundled
    from backend.domains.prompts import PromptLibrary
    from backend.engines.base import EngineConfig, build_engine
    from backend.envs.sim.episode import EnvOptions, EpisodeSpec
    from backend.envs.sim.rewards import RewardOptions, build_reward
    from backend.envs.sim.world import WorldEnv

    trajectory = next(t for t in load_bundled() if t.domain == "terminal")
    oracle = Simulator(build_engine(EngineConfig(name="oracle")), PromptLibrary())
    env = WorldEnv(
        oracle,
        build_reward("reference", RewardOptions()),
        EnvOptions(max_steps=2),
        SessionStore(database.session_factory),
    )
    env.reset(EpisodeSpec.from_trajectory(trajectory))
    info = env.step(trajectory.turns[0].action).info
    assert info["provenance"] == {
        "kind": "predicted",
        "engine": "oracle",
        "model": "baseline:oracle",
    }
    assert info["reference_provenance"] == stored(
        Recorded(dataset=trajectory.source, row_id=trajectory.id, turn=1)
    )
    step = SessionStore(database.session_factory).load_session(env.session_id).steps[0]
    assert step.provenance == Recorded(dataset=trajectory.source, row_id=trajectory.id, turn=1)


def test_bench_rows_and_exports_carry_both_sources(awp_context: AppContext, tmp_path: Path) -> None:
    from backend.benchmark.store import ItemStore
    from backend.data.bundled import load_bundled

    # Recordings that start where a bundled one's second turn does: the record answers those
    # steps from them (a copy of an item's own recording never answers it: the leakage guard).
    bundled = load_bundled()
    others = [
        t.model_copy(
            update={
                "id": f"other/{t.id}",
                "initial_state": t.turns[0].observation,
                "turns": t.turns[1:],
            }
        )
        for t in bundled
        if len(t.turns) > 1 and t.turns[0].observation is not None
    ]
    awp_context.trajectories.upsert_many([*bundled, *others])
    out = tmp_path / "bench"
    args = ["--dataset", "bundled", "--engine", "persistence", "--limit", "12"]
    code, output = run("bench", *args, "--record-answers", "--out", str(out))
    assert code == 0, output
    rows = list(ItemStore(out / "items.jsonl").rows())
    by_model = [row for row in rows if row.answered_by == "model"]
    by_record = [row for row in rows if row.answered_by == "record"]
    assert by_record
    assert all(row.provenance["kind"] == "predicted" for row in by_model)
    # A prediction names the world it ran in: the digest of the run's stored spec.
    from storage.run_kinds import BenchRun

    (run_row,) = awp_context.runs.list_runs(BenchRun)
    (world,) = run_row.worlds
    assert {row.provenance["spec"] for row in by_model} == {world["digest"]}
    # A record answer names the recording it was read from (with its step's fingerprint).
    for row in by_record:
        source = row.provenance
        assert source["kind"] == "recorded" and source["row_id"].startswith("other/")
        assert source["fingerprint"]
        assert row.reference_provenance["row_id"] == row.item_id.rsplit("#", 1)[0]
    code, output = run("export", "--format", "reward", "--out", str(tmp_path / "r.jsonl"))
    assert code == 0, output
    exported = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert exported and all(row["provenance"]["kind"] for row in exported)
    assert {row["real_provenance"]["kind"] for row in exported} == {"recorded"}
    code, output = run("export", "--format", "atif", "--out", str(tmp_path / "t.jsonl"))
    assert code == 0, output
    trajectory = json.loads((tmp_path / "t.jsonl").read_text().splitlines()[-1])
    assert trajectory["extra"]["provenance"]["kind"] in ("predicted", "recorded")
    outcome = trajectory["steps"][-1]["extra"]["world_model"]
    assert outcome["real_provenance"]["kind"] == "recorded"
