"""One world spec, resolved once: the same request through the page and the CLI stores equal specs.

The real app is driven with gradio_client and `awp` runs in-process (typer's CliRunner) over the
same data directory and settings, so the two edges differ only in which one was asked. Before
specs, the Benchmark page fell back to `AWP_GROUNDING` / `AWP_RECORD_ANSWERS` (on) while
`awp bench` turned both off: one 60-item persistence benchmark was grounded 60 times on the page
and never on the CLI, and neither run said so.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gradio_client import Client
from sqlalchemy import select

from storage.models import PredictionRow, ScoreRow, SessionRow, StepRow
from storage.run_kinds import BenchRun, RolloutRun
from tests.support.app_server import RunningApp, follow_job, named, start_app
from tests.support.cli import run
from tests.support.fake_openai import FakeOpenAIServer, json_reply, serve_fake_openai
from tests.support.live import skip_unless_live
from ui.pages.futures import SAMPLES
from ui.pages.start import DEMO_RECORDING

MODEL = "served/model"
"""The configured model (`AWP_MODEL`) of the default engine, openai: what an empty judge model
means on every edge."""
LS = '[{"keystrokes": "ls\\n", "duration": 1}]'
ITEMS = 60
VERDICT = {
    "scores": {"format": 4, "factuality": 3, "consistency": 4, "realism": 4, "quality": 3},
    "strengths": ["format"],
    "weaknesses": ["content"],
}


@pytest.fixture(scope="module")
def judge_server() -> Iterator[FakeOpenAIServer]:
    with serve_fake_openai() as server:
        yield server


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, judge_server) -> Iterator[RunningApp]:
    settings = {"model": MODEL, "base_url": judge_server.base_url, "hybrid_min_confidence": 0.5}
    running = start_app(tmp_path_factory.mktemp("world-spec"), "openai", settings)
    yield running
    running.close()


@pytest.fixture
def cli_env(app: RunningApp, monkeypatch: pytest.MonkeyPatch) -> RunningApp:
    """`awp` commands see what the app sees: its data directory, engine, model and server."""
    settings = app.settings
    monkeypatch.setenv("AWP_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("AWP_ENGINE", settings.engine)
    monkeypatch.setenv("AWP_MODEL", settings.model)
    monkeypatch.setenv("AWP_BASE_URL", settings.base_url)
    monkeypatch.setenv("AWP_HYBRID_MIN_CONFIDENCE", str(settings.hybrid_min_confidence))
    return app


def verdict_reply() -> dict[str, Any]:
    """A chat completion holding a rubric verdict."""
    answer = f"<final_evaluation>{json.dumps(VERDICT)}</final_evaluation>"
    return {"choices": [{"message": {"content": answer}, "finish_reason": "stop"}]}


def awp(*args: str) -> str:
    code, output = run(*args)
    assert code == 0, output
    return output


def bench_counts(app: RunningApp, run_id: int) -> tuple[int, int, int]:
    """(predictions, grounded ones, ones the record answered) stored for a benchmark run."""
    query = (
        select(PredictionRow.grounded_by, PredictionRow.engine)
        .join(StepRow, PredictionRow.step_id == StepRow.id)
        .join(SessionRow, StepRow.session_id == SessionRow.id)
        .where(SessionRow.bench_run_id == run_id)
    )
    with app.context.database.session_factory() as session:
        rows = session.execute(query).all()
    return len(rows), sum(bool(g) for g, _ in rows), sum(e == "record" for _, e in rows)


def worlds_of(app: RunningApp, kind: str) -> list[dict[str, Any]]:
    """`session.world` of every session of `kind`, oldest first."""
    query = select(SessionRow.world).where(SessionRow.kind == kind).order_by(SessionRow.id)
    with app.context.database.session_factory() as session:
        return list(session.scalars(query))


def latest_bench(app: RunningApp) -> BenchRun:
    return app.context.runs.list_runs(BenchRun)[0]


def test_a_persistence_benchmark_is_measured_alike_on_the_page_and_the_cli(cli_env) -> None:
    app = cli_env
    client = Client(app.url, verbose=False)
    line, _ = follow_job(
        client, "bench_run", "bundled", ["persistence"], "(no judge)", ITEMS, "teacher_forced"
    )
    assert 'data-status="finished"' in line, line
    page = latest_bench(app)
    awp("bench", "--dataset", "bundled", "--engine", "persistence", "--limit", str(ITEMS))
    cli = latest_bench(app)
    assert cli.id != page.id

    # Both ran ungrounded and answered nothing from the record: the figures measure the model.
    assert bench_counts(app, page.id) == bench_counts(app, cli.id) == (ITEMS, 0, 0)
    assert page.worlds == cli.worlds and len(page.worlds) == 1
    [world] = page.worlds
    assert (world["purpose"], world["engine"], world["model"]) == (
        "bench",
        "persistence",
        "baseline:persistence",
    )
    assert (world["grounding"], world["record_answers"], world["base_url"]) == (False, False, None)
    # Every bench session states the world its predictions were made in.
    assert {w["digest"] for w in worlds_of(app, "bench")} == {world["digest"]}
    # The Runs page says it in words.
    _, detail, *_ = client.predict(page.id, api_name="/runs_open")
    assert "grounding off, record answers off" in detail
    assert "persistence · baseline:persistence" in detail


def test_grounding_asked_for_on_either_edge_grounds_alike(cli_env) -> None:
    app = cli_env
    client = Client(app.url, verbose=False)
    args = ("bundled", ["persistence"], "(no judge)", 10, "teacher_forced", True, True)
    line, _ = follow_job(client, "bench_run", *args)
    assert 'data-status="finished"' in line, line
    page = latest_bench(app)
    asked = ("--grounding", "--record-answers")
    awp("bench", "--dataset", "bundled", "--engine", "persistence", "--limit", "10", *asked)
    cli = latest_bench(app)

    assert page.worlds == cli.worlds and page.worlds[0]["grounding"] is True
    counted = bench_counts(app, page.id)
    assert counted == bench_counts(app, cli.id) and counted[1] > 0
    _, detail, *_ = client.predict(page.id, api_name="/runs_open")
    assert "grounding on (k=4" in detail and "record answers on" in detail


def test_a_judged_benchmark_reads_an_empty_judge_model_alike(cli_env, judge_server) -> None:
    app = cli_env
    judge_server.script.extend(json_reply(200, verdict_reply()) for _ in range(4))
    client = Client(app.url, verbose=False)
    line, _ = follow_job(
        client, "bench_run", "bundled", ["persistence"], "openai", 2, "teacher_forced"
    )
    assert 'data-status="finished"' in line, line
    page = latest_bench(app)
    awp(
        "bench",
        "--dataset",
        "bundled",
        "--engine",
        "persistence",
        "--judge",
        "openai",
        "--limit",
        "2",
    )
    cli = latest_bench(app)

    from backend.spec import describe

    assert page.spec["judge_world"] == cli.spec["judge_world"]
    judge = page.spec["judge_world"]
    assert (judge["purpose"], judge["engine"], judge["model"]) == ("judge", "openai", MODEL)
    assert page.worlds == cli.worlds
    _, detail, *_ = client.predict(page.id, api_name="/runs_open")
    assert f"Judge: {describe(judge)}" in detail.replace("&#x27;", "'")


def rollout_both(app: RunningApp, out: Path, env: str, steps: int) -> tuple[RolloutRun, RolloutRun]:
    """The same rollout from the Rollouts page, then `awp rollout`: both stored runs."""
    client = Client(app.url, verbose=False)
    line, _ = follow_job(client, "rollout_run", "terminal", "replay", "persistence", 1, steps, env)
    assert 'data-status="finished"' in line, line
    page = app.context.runs.list_runs(RolloutRun)[0]
    args = ["--domain", "terminal", "--agent", "replay", "--engine", "persistence"]
    awp(
        "rollout",
        *args,
        "--episodes",
        "1",
        "--max-steps",
        str(steps),
        "--env",
        env,
        "--out",
        str(out),
    )
    cli = app.context.runs.list_runs(RolloutRun)[0]
    assert cli.id != page.id
    return page, cli


def test_a_rollout_runs_in_the_same_world_from_the_page_and_the_cli(
    cli_env, tmp_path: Path
) -> None:
    page, cli = rollout_both(cli_env, tmp_path / "out", "sim", 2)

    assert page.worlds == cli.worlds and len(page.worlds) == 1
    [world] = page.worlds
    assert (world["purpose"], world["engine"], world["hybrid"]) == ("rollout", "persistence", False)
    assert page.world == cli.world == "persistence:baseline:persistence"
    # One episode each: the page's and the command's sessions, the latest two.
    page_episode, cli_episode = worlds_of(cli_env, "rollout")[-2:]
    assert page_episode == cli_episode == world


@skip_unless_live("terminal")
def test_a_hybrid_rollout_keeps_the_confidence_threshold_on_the_page(cli_env, tmp_path) -> None:
    # The Rollouts page built its hybrid episodes without AWP_HYBRID_MIN_CONFIDENCE.
    page, cli = rollout_both(cli_env, tmp_path / "out", "hybrid", 1)
    assert page.worlds == cli.worlds and len(page.worlds) == 1
    [world] = page.worlds
    assert (world["hybrid"], world["hybrid_routes"], world["hybrid_min_confidence"]) == (
        True,
        "domain_policy",
        0.5,
    )


def test_futures_on_the_page_store_the_world_awp_simulate_stores(cli_env) -> None:
    app = cli_env
    person = Client(app.url, verbose=False)
    named(person.predict("terminal", DEMO_RECORDING, 1, api_name="/load_turn"))
    line, _ = follow_job(person, "futures", LS, SAMPLES, 2, "", "", "", "", engine="persistence")
    assert 'data-status="finished"' in line, line
    awp("simulate", "--domain", "terminal", "--engine", "persistence", "--action", LS)

    [page] = worlds_of(app, "futures")
    [cli] = worlds_of(app, "cli")
    assert page == cli
    assert (page["purpose"], page["engine"]) == ("playground", "persistence")
    # The Playground keeps the settings' defaults: grounding and record answers on.
    assert (page["grounding"], page["record_answers"]) == (True, True)


def judges(app: RunningApp) -> list[tuple[str, str, float]]:
    """(engine, model, temperature) of every stored judge verdict."""
    query = select(ScoreRow.details).where(ScoreRow.name == "judge.format")
    with app.context.database.session_factory() as session:
        details = list(session.scalars(query))
    return [(d["judge_engine"], d["judge_model"], d["temperature"]) for d in details]


def test_judge_this_and_awp_judge_grade_with_one_judge(cli_env, judge_server) -> None:
    app = cli_env
    before = len(judges(app))
    judge_server.script.extend(json_reply(200, verdict_reply()) for _ in range(2))
    person = Client(app.url, verbose=False)
    out = named(person.predict("terminal", DEMO_RECORDING, 1, api_name="/load_turn"))
    person.predict(out["action"], engine="persistence", api_name="/step")
    line, _ = follow_job(person, "judge_step")
    assert 'data-status="finished"' in line, line
    # A second step, left ungraded, for the command to grade.
    out = named(person.predict("terminal", DEMO_RECORDING, 2, api_name="/load_turn"))
    person.predict(out["action"], engine="persistence", api_name="/step")
    awp("judge", "--judge", "openai", "--limit", "1")

    judged = judges(app)
    assert len(judged) == before + 2 and set(judged) == {("openai", MODEL, 0.0)}
