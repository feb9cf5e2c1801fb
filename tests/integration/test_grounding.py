"""Grounding over the real database: what is indexed, freshness, provenance, and no leakage.

Real SQLite (PostgreSQL when configured), the real step path and the `persistence` baseline
engine: the tests are about which real transitions a step is shown and where that is recorded,
not about generation.
"""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import event, select

from app.context import AppContext
from backend.benchmark.items import load_items
from backend.benchmark.runner import RunConfig
from backend.benchmark.service import run_items
from backend.benchmark.sessions import BenchSessions
from backend.benchmark.store import ItemStore
from backend.data.bundled import load_bundled
from backend.domains.prompts import PromptLibrary
from backend.engines.base import EngineConfig, build_engine
from backend.envs.sim.episode import EnvOptions, EpisodeSpec
from backend.envs.sim.rewards import RewardOptions, build_reward
from backend.envs.sim.world import WorldEnv
from backend.export.builders import FORMATS
from backend.export.records import ExportContext
from backend.grounding.grounder import Grounder
from backend.recording import NewSession
from backend.simulate import Simulator
from backend.stepping import record_prediction
from backend.training.evaluate import eval_params, run_eval
from backend.types import SimRequest, Trajectory, Turn
from storage.annotations import AnnotationInput, AnnotationStore, Ratings
from storage.annotations.context import queue_item
from storage.db import Database, session_scope
from storage.export_source import ExportQuery, iter_export_records
from storage.models import PredictionRow
from storage.sessions import SessionStore
from storage.trajectories import TrajectoryStore
from storage.transitions import TransitionStore
from tests.support.cli import run
from ui.provenance import correction_ids

SCREEN = "user@host:~$ "
CAT = json.dumps([{"keystrokes": "cat plan.txt\n", "duration": 0.1}])
RATINGS = Ratings(format=2, factuality=1, consistency=2, realism=2, quality=1)


def grounded(database: Database, k: int = 4) -> tuple[Simulator, Grounder]:
    grounder = Grounder(TransitionStore(database.session_factory), k=k, max_tokens=4000)
    engine = build_engine(EngineConfig(name="persistence"))
    return Simulator(engine, PromptLibrary(), grounder), grounder


def recording(observation: str, trajectory_id: str = "rec/plan") -> Trajectory:
    return Trajectory(
        id=trajectory_id,
        domain="terminal",
        initial_state=SCREEN,
        turns=[Turn(action=CAT, observation=observation)],
        source="test",
        licence="MIT",
    )


def step(**changes: object) -> SimRequest:
    return SimRequest(domain="terminal", initial_state=SCREEN, action=CAT, **changes)


def test_a_new_recording_or_correction_is_retrieved_at_once(database: Database) -> None:
    simulator, grounder = grounded(database)
    sessions = SessionStore(database.session_factory)
    assert simulator.step(step()).grounded_by == []

    TrajectoryStore(database.session_factory).upsert(recording("step one\n" + SCREEN))
    first = simulator.step(step())
    assert first.grounded_by == ["rec/plan#1"] and "step one" in first.messages[0].content
    simulator.step(step())
    assert grounder.builds == 2  # the empty index, then one rebuild: nothing changed since

    # A re-import that changes a turn in place (same number of turns) is seen too.
    TrajectoryStore(database.session_factory).upsert(recording("step two\n" + SCREEN))
    assert "step two" in simulator.step(step()).messages[0].content

    # A reviewer's correction is real (`backend.trust`); a prediction an annotator accepted
    # never is.
    annotations = AnnotationStore(database.session_factory)
    fixed = record_prediction(sessions, NewSession.for_request(step(), "cli"), step(), first)
    annotations.submit(
        fixed.prediction_id,
        "ann",
        AnnotationInput(
            verdict="reject", corrected_observation="corrected plan\n" + SCREEN, ratings=RATINGS
        ),
        role="reviewer",
    )
    liked = record_prediction(sessions, NewSession.for_request(step(), "cli"), step(), first)
    annotations.submit(liked.prediction_id, "ann", AnnotationInput(verdict="accept"))
    again = simulator.step(step())
    refs = again.grounded_by
    assert "rec/plan#1" in refs and any(ref.startswith("annotation:") for ref in refs)
    assert len(refs) == 2 and "corrected plan" in again.messages[0].content

    # The pages name it by the step it corrects, every correction in one query.
    asked: list[str] = []

    def count(_connection: object, _cursor: object, statement: str, *_: object) -> None:
        asked.append(statement)

    event.listen(database.engine, "before_cursor_execute", count)
    places = annotations.places(correction_ids([*refs, "annotation:999999"]))
    event.remove(database.engine, "before_cursor_execute", count)
    (place,) = places.values()
    assert (place.session_id, place.step_index, place.domain) == (fixed.session_id, 0, "terminal")
    assert len(asked) == 1


def test_which_steps_grounded_a_prediction_is_stored_and_exported(database: Database) -> None:
    TrajectoryStore(database.session_factory).upsert(recording("the plan\n" + SCREEN))
    simulator, _ = grounded(database)
    sessions = SessionStore(database.session_factory)
    request = step(reference="the plan\n" + SCREEN)
    outcome = record_prediction(
        sessions, NewSession.for_request(request, "cli"), request, simulator.step(request)
    )
    stored = sessions.load_session(outcome.session_id).steps[0].predictions[0].prediction
    assert stored.grounded_by == ["rec/plan#1"]
    with session_scope(database.session_factory) as session:
        assert queue_item(session, outcome.prediction_id, None).grounded_by == ["rec/plan#1"]
    (record,) = iter_export_records(database.session_factory, ExportQuery(annotated_only=False))
    assert record.grounded_by == ["rec/plan#1"]
    context = ExportContext(system_prompt=lambda domain, ctx: "")
    (row,) = FORMATS.get("reward").build(record, context)
    assert row.grounded_by == ["rec/plan#1"]


def seeded(database: Database, domains: set[str]) -> list:
    TrajectoryStore(database.session_factory).upsert_many(load_bundled())
    return [item for item in load_items("bundled") if item.domain in domains]


def assert_no_leak(pairs: list[tuple[str, list[str]]]) -> None:
    """Each (own recording, refs shown) pair shows nothing of its own recording; some show some."""
    assert pairs and sum(bool(refs) for _, refs in pairs) >= len(pairs) // 2
    for own, refs in pairs:
        assert not [ref for ref in refs if ref.startswith(f"{own}#")], own


def test_benchmark_items_never_see_their_own_recording(database: Database, tmp_path: Path) -> None:
    items = seeded(database, {"terminal", "android"})
    simulator, _ = grounded(database, k=8)
    config = RunConfig(engines=["persistence"], concurrency=16, progress=False)
    sessions = BenchSessions(SessionStore(database.session_factory))
    run_items(items, "bundled", tmp_path, config, lambda _: simulator, None, sessions)
    rows = {row.item_id: row for row in ItemStore(tmp_path / "items.jsonl").rows()}
    assert_no_leak([(item.trajectory_key, rows[item.item_id].grounded_by) for item in items])
    with session_scope(database.session_factory) as session:
        stored = dict(session.execute(select(PredictionRow.id, PredictionRow.grounded_by)).all())
    assert {stored[row.prediction_id] == row.grounded_by for row in rows.values()} == {True}


def test_training_evaluation_never_sees_its_own_recording(
    database: Database, tmp_path: Path
) -> None:
    items = seeded(database, {"terminal", "swe"})
    simulator, _ = grounded(database, k=8)
    run_eval(
        items, tmp_path, "before", "m", lambda engine, model: simulator, eval_params(16, 0), False
    )
    (path,) = tmp_path.rglob("items.jsonl")
    rows = {row.item_id: row for row in ItemStore(path).rows()}
    assert_no_leak([(item.trajectory_key, rows[item.item_id].grounded_by) for item in items])


def test_rollouts_never_see_their_own_recording(database: Database) -> None:
    TrajectoryStore(database.session_factory).upsert_many(load_bundled())
    simulator, _ = grounded(database, k=8)
    pairs = []
    for trajectory in [t for t in load_bundled() if t.domain == "terminal"]:
        env = WorldEnv(
            simulator,
            build_reward("reference", RewardOptions()),
            EnvOptions(max_steps=len(trajectory.turns), record=False),
        )
        env.reset(EpisodeSpec.from_trajectory(trajectory))
        for turn in trajectory.turns:
            pairs.append((trajectory.id, env.step(turn.action).info["grounded_by"]))
    assert_no_leak(pairs)


def test_the_cli_grounds_simulate_by_default_and_bench_only_when_asked(
    awp_context: AppContext, tmp_path: Path
) -> None:
    awp_context.trajectories.upsert_many(load_bundled())
    ask = ["simulate", "--engine", "persistence", "--json", "--domain", "terminal"]
    ask += ["--action", CAT]

    def grounded_by(*flags: str) -> list[str]:
        code, output = run(*ask, *flags)
        assert code == 0, output
        return json.loads(output.strip().splitlines()[-1])["grounded_by"]

    assert len(grounded_by()) == 4  # AWP_GROUNDING_K's default
    assert len(grounded_by("--grounding-k", "2")) == 2
    assert grounded_by("--no-grounding") == []

    def bench(out: Path, *flags: str) -> list[list[str]]:
        args = ["--dataset", "bundled", "--engine", "persistence", "--limit", "12"]
        code, output = run("bench", *args, "--out", str(out), *flags)
        assert code == 0, output
        return [row.grounded_by for row in ItemStore(out / "items.jsonl").rows()]

    assert bench(tmp_path / "official") == [[]] * 12
    assert any(bench(tmp_path / "grounded", "--grounding"))
