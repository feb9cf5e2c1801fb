"""Hybrid backing: exact executors for what is deterministic, the world model for the rest."""

from __future__ import annotations

import json
from pathlib import Path

from backend.domains.prompts import PromptLibrary
from backend.engines.baselines import BaselineEngine
from backend.envs.sim.episode import EnvOptions, EpisodeSpec
from backend.envs.sim.rewards import RewardOptions, build_reward
from backend.envs.sim.world import WorldEnv
from backend.simulate import Simulator
from storage.db import Database
from storage.sessions import SessionStore
from tests.support.live import call, live_config, sandbox_of, skip_unless_live
from tests.support.status import session_of

pytestmark = skip_unless_live("swe")

NUMERALS = "/testbed/romans/numerals.py"
EXTRA = "/testbed/romans/extra.py"
PREDICTED_TESTS = "==== 3 passed in 0.02s ===="
EDITS = [
    call("str_replace_editor", command="view", path=NUMERALS),
    call(
        "str_replace_editor",
        command="str_replace",
        path=NUMERALS,
        old_str="for letter in numeral.upper())",
        new_str="for letter in numeral.upper())  # still additive",
    ),
    call("str_replace_editor", command="create", path=EXTRA, file_text="A = 1\n"),
    call("str_replace_editor", command="insert", path=EXTRA, insert_line=1, new_str="B = 2"),
    call("str_replace_editor", command="insert", path=EXTRA, insert_line=0, new_str="# top"),
    call("str_replace_editor", command="undo_edit", path=EXTRA),
    call("bash", command="python -m pytest -q -p no:cacheprovider"),
]


def files(env: WorldEnv) -> dict[str, bytes]:
    """Every file of the task repository (but git's own), byte for byte."""
    assert env.live is not None
    _, folder = sandbox_of(env.live.env)
    root = folder / "testbed"
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    }


def episode(backing: str, tmp_path: Path, store: SessionStore) -> WorldEnv:
    engine = BaselineEngine("scripted-tests", lambda request: PREDICTED_TESTS)
    env = WorldEnv(
        Simulator(engine, PromptLibrary()),
        build_reward("reference", RewardOptions()),
        EnvOptions(
            backing=backing,  # type: ignore[arg-type]
            max_steps=20,
            live_config=live_config(tmp_path / backing, action_timeout_s=30.0),
        ),
        store,
    )
    env.reset(EpisodeSpec(domain="swe", live_task="romans"))
    return env


def test_a_hybrid_swe_episode_edits_files_exactly_and_predicts_the_tests(
    database: Database, tmp_path: Path
) -> None:
    store = SessionStore(database.session_factory)
    live, hybrid = episode("live", tmp_path, store), episode("hybrid", tmp_path, store)
    try:
        real = [live.step(action) for action in EDITS]
        mixed = [hybrid.step(action) for action in EDITS]
        assert files(hybrid) == files(live)
        assert files(hybrid)["romans/extra.py"] == b"A = 1\nB = 2\n"
        assert [r.observation for r in mixed[:-1]] == [r.observation for r in real[:-1]]
        assert [r.info["answered_by"] for r in mixed] == ["executor"] * 6 + ["model"]
        assert mixed[-1].observation == PREDICTED_TESTS
        assert "failed" in real[-1].observation and PREDICTED_TESTS not in real[-1].observation

        made = hybrid.step(call("bash", command="touch /testbed/made_by_bash"))
        assert made.info["answered_by"] == "model" and "made_by_bash" not in files(hybrid)

        stored = store.load_session(hybrid.session_id)
        assert [s.answered_by for s in stored.steps] == ["executor"] * 6 + ["model", "model"]
        assert stored.engine == "scripted-tests"
        first = stored.steps[0].predictions[0].prediction
        assert first.engine == "executor" and first.answered_by == "executor"
        assert stored.steps[0].origin == "live" and stored.steps[6].real_observation is None
        assert {s.answered_by for s in store.load_session(live.session_id).steps} == {"live"}
    finally:
        live.close()
        hybrid.close()


def test_awp_simulate_backing_hybrid_runs_edits_and_predicts_bash(awp_context) -> None:
    from tests.support.cli import run

    def step(*args: str) -> dict:
        code, out = run(
            "simulate", *args, "--backing", "hybrid", "--engine", "persistence", "--json"
        )
        assert code == 0, out
        return json.loads(out.strip().splitlines()[-1])

    edit = call(
        "str_replace_editor",
        command="create",
        path=EXTRA,
        file_text="A = 1\n",
    )
    first = step("--domain", "swe", "--task", "romans", "--action", edit)
    assert first["answered_by"] == "executor" and first["engine"] == "executor"
    assert first["observation"] == f"File created successfully at: {EXTRA}"
    session = str(first["session_id"])
    bash = step("--session", session, "--action", call("bash", command="cat " + EXTRA))
    assert bash["answered_by"] == "model" and bash["engine"] == "persistence"
    # the session continues from a fresh sandbox: the edit is replayed, the predicted bash not
    view = step(
        "--session", session, "--action", call("str_replace_editor", command="view", path=EXTRA)
    )
    assert view["answered_by"] == "executor" and "A = 1" in view["observation"]
    stored = awp_context.sessions.load_session(first["session_id"])
    assert [s.answered_by for s in stored.steps] == ["executor", "model", "executor"]
    trajectory = awp_context.trajectories.get(stored.base_trajectory_id)
    assert [t.action for t in trajectory.turns] == [stored.steps[0].action, stored.steps[2].action]


def test_the_playground_offers_hybrid_and_says_who_answered(tmp_path: Path) -> None:
    from gradio_client import Client

    from tests.support.app_server import named, start_app

    app = start_app(tmp_path / "app", settings={"live_max": 1})
    try:
        client = Client(app.url, verbose=False)
        started = named(client.predict("swe", "romans", True, api_name="/start_live"))
        assert "Hybrid" in started["status"]

        def step(action: str) -> dict:
            return named(client.predict(action, engine="persistence", api_name="/step"))

        edit = step(call("str_replace_editor", command="create", path=EXTRA, file_text="A = 1\n"))
        assert "answered by" in edit["status"] and "executor" in edit["status"]
        tests = step(call("bash", command="python -m pytest -q"))
        assert "answered by" not in tests["status"] and "persistence" in tests["status"]
        client.predict(1, api_name="/rewind")
        again = step(call("str_replace_editor", command="view", path=EXTRA))
        # the predicted bash never ran live: back at step 1 the sandbox needs no replay
        assert "replayed" not in again["status"] and "A = 1" in str(again)
        session = session_of(again["status"])
        stored = app.context.sessions.load_session(session)
        assert [s.answered_by for s in stored.steps] == ["executor", "executor"]
    finally:
        app.close()


def test_exact_answers_are_exported_but_never_queued_for_review(database: Database) -> None:
    from backend.recording import NewSession
    from backend.simulate import exact_prediction
    from backend.sources import live_answer
    from backend.stepping import record_prediction
    from backend.types import HistoryMode, SamplingParams, SimRequest
    from storage.annotations import AnnotationQueue
    from storage.export_source import ExportQuery, iter_export_records

    store = SessionStore(database.session_factory)
    request = SimRequest(
        domain="swe",
        action=EDITS[0],
        reference="listing",
        reference_origin="live",
    )
    target = NewSession("swe", HistoryMode.TEACHER_FORCED, SamplingParams(), engine="e", model="m")
    outcome = record_prediction(
        store,
        target,
        request,
        exact_prediction(
            request.action,
            "listing",
            "executor",
            "live:swe",
            provenance=live_answer("swe", "executor"),
        ),
    )
    queue = AnnotationQueue(database.session_factory)
    assert queue.claim_next("ann") is None
    records = list(iter_export_records(database.session_factory, ExportQuery(annotated_only=False)))
    assert [(r.answered_by, r.engine, r.confidence) for r in records] == [
        ("executor", "executor", 1.0)
    ]
    assert records[0].prediction_id == outcome.prediction_id


def test_the_queue_offers_the_least_confident_first_when_asked(database: Database) -> None:
    from backend.provenance import Predicted
    from backend.recording import NewSession
    from backend.simulate import exact_prediction
    from backend.stepping import record_prediction
    from backend.types import HistoryMode, SamplingParams, SimRequest
    from storage.annotations import AnnotationQueue
    from storage.annotations.types import QueueFilter

    store = SessionStore(database.session_factory)
    target = NewSession("swe", HistoryMode.TEACHER_FORCED, SamplingParams(), engine="e", model="m")
    ids = []
    for confidence in (0.9, None, 0.2, 0.6):
        request = SimRequest(domain="swe", action=EDITS[0])
        made = exact_prediction(request.action, "x", "executor", "m").model_copy(
            update={
                "engine": "e",
                "answered_by": "model",
                "confidence": confidence,
                "provenance": Predicted(engine="e", model="m"),
            }
        )
        ids.append(record_prediction(store, target, request, made).prediction_id)
        target = store.load_session(store.list_sessions()[0].id).id
    queue = AnnotationQueue(database.session_factory)
    first = queue.claim_next("ann", QueueFilter(least_confident=True))
    assert first is not None and first.prediction_id == ids[2] and first.confidence == 0.2
    queue.release(first.prediction_id, "ann")
    oldest = queue.claim_next("other", QueueFilter())
    assert oldest is not None and oldest.prediction_id == ids[0]


def test_selective_simulation_sends_unsure_predictions_to_the_live_environment(
    database: Database, tmp_path: Path
) -> None:
    class Unsure(BaselineEngine):
        """The scripted model, unsure of its test output (confidence 0.1)."""

        def generate(self, requests):  # type: ignore[no-untyped-def]
            made = super().generate(requests)
            return [c.model_copy(update={"confidence": 0.1}) for c in made]

    store = SessionStore(database.session_factory)
    env = WorldEnv(
        Simulator(Unsure("unsure", lambda request: PREDICTED_TESTS), PromptLibrary()),
        build_reward("reference", RewardOptions()),
        EnvOptions(
            backing="hybrid",
            max_steps=5,
            live_config=live_config(tmp_path, action_timeout_s=30.0),
            min_confidence=0.5,
        ),
        store,
    )
    env.reset(EpisodeSpec(domain="swe", live_task="romans"))
    try:
        result = env.step(EDITS[-1])
        assert result.info["answered_by"] == "live" and "failed" in result.observation
        stored = store.load_session(env.session_id)
        assert stored.steps[0].answered_by == "live" and stored.steps[0].origin == "live"
    finally:
        env.close()
