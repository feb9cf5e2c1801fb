"""The workbench through gradio_client: Start demos, Sessions browser, Runs with benchmark items,
and a Playground whose state is the start mode it shows."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from gradio_client import Client

from app.context import build_context
from storage.run_kinds import BenchRun
from tests.support.app_server import RunningApp, follow_job, named, start_app
from tests.support.live import skip_unless_live
from tests.support.prepared_model import link_prepared_model
from ui.pages.playground_view import trajectory_choices
from ui.pages.start import DEMO_RECORDING


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    # The embedded model `make test` prepared, linked: its conversion is tested once, in
    # test_engine_transformers, and is not paid again by the embedded demo here.
    running = start_app(link_prepared_model(tmp_path_factory.mktemp("workbench")))
    yield running
    running.close()


@pytest.fixture
def client(app: RunningApp) -> Client:
    return Client(app.url, verbose=False)


def data(update: dict) -> list:
    """The rows of a returned Dataframe (an update carries them under `value`)."""
    return (update.get("value", update).get("data")) or []


def session_of(html: str) -> int:
    return int(re.search(r"Open session #(\d+)", html).group(1))


def test_the_oracle_demo_replays_a_terminal_session_and_links_to_it(client, app):
    out = client.predict(api_name="/demo_oracle")
    assert "The oracle replayed" in out and "awp-inline-error" not in out
    stored = app.context.sessions.load_session(session_of(out))
    recording = app.context.trajectories.get(DEMO_RECORDING)
    assert len(stored.steps) == len(recording.turns)
    assert all(s.prediction is not None and s.prediction.scores for s in stored.steps)


@skip_unless_live("terminal")
def test_the_live_shell_demo_runs_a_real_command_and_frees_its_sandbox(client, app):
    out = client.predict(api_name="/demo_shell")
    assert "hello from a live shell" in out, out
    assert "Live: no reward signal, the episode goes on." in out  # the live closure
    assert app.context.live_pool.count() == 0  # the demo's sandbox is closed again


@pytest.mark.slow
def test_the_embedded_demo_predicts_or_says_why_beside_its_button(client):
    out = client.predict(api_name="/demo_embedded")
    # The prepared model predicts; where none could be prepared, the result line explains why
    # (no pill, no traceback).
    assert "awp-inline-error" in out or "embedded model predicted" in out


def test_next_step_names_the_queue_for_annotators(client, app):
    client.predict(api_name="/demo_oracle")
    waiting = app.context.annotation_queue.count_pending("anonymous")
    who = client.predict(api_name="/whoami")
    assert any(f"{waiting} prediction" in str(part) for part in who)


def test_sessions_are_found_by_filters_and_opened(client, app):
    session = session_of(client.predict(api_name="/demo_oracle"))
    table, note = client.predict("oracle", "terminal", "", "", api_name="/sessions_find")
    ids = [row[0] for row in data(table)]
    assert session in ids and "match" in note
    table, _ = client.predict("", "android", "", "", api_name="/sessions_find")
    assert session not in [row[0] for row in data(table)]
    view, shown_id, message = client.predict(session, api_name="/sessions_open")
    assert f"Session #{session}" in view and shown_id == session and message == ""
    _, _, refused = client.predict(999_999, api_name="/sessions_open")
    assert "awp-inline-error" in refused and "999999" in refused


def test_a_benchmark_run_lists_its_items_and_opens_one(client, app):
    line, _ = follow_job(
        client, "bench_run", "bundled", ["oracle"], "(no judge)", 2, "teacher_forced"
    )
    assert 'data-status="finished"' in line
    run = app.context.runs.list_runs(BenchRun)[0]
    run_id, detail, items, item, message = client.predict(run.id, api_name="/runs_open")
    assert run_id == run.id and f"Benchmark run {run.id}" in detail and message == ""
    rows = data(items)
    assert len(rows) == 2 and {row[4] for row in rows} == {"oracle"}
    assert "Click an item" in item


def test_changing_the_start_mode_resets_the_playground(client):
    loaded = named(client.predict("terminal", DEMO_RECORDING, 2, api_name="/load_turn"))
    assert "Task:" in loaded["status"] or loaded["action"]  # the recording's task when it has one
    assert loaded["position"] == 2
    switched = named(client.predict("terminal", "live", api_name="/select_source"))
    assert switched["position"] == 0 and switched["action"] == ""
    assert "until it runs, Step has no real state" in switched["status"]


def test_live_runs_are_listed_after_the_recordings(tmp_path):
    from backend.data.bundled import load_bundled

    context = build_context(data_dir=tmp_path, engine="persistence")
    try:
        store = context.trajectories
        base = next(t for t in load_bundled() if t.domain == "terminal")
        store.upsert(base.model_copy(update={"id": "aaa-live", "source": "live:terminal"}))
        store.upsert(base.model_copy(update={"id": "zzz-recorded"}))
        labels = [label for label, _ in trajectory_choices(store, "terminal")]
        assert labels[0].startswith("zzz-recorded") and labels[-1].startswith("live run")
    finally:
        context.close()


@contextmanager
def a_step_to_judge(tmp_path: Path, judge: str) -> Iterator[tuple[RunningApp, Client]]:
    """An app judging with `judge`, and a person whose Playground holds one persistence step."""
    running = start_app(tmp_path, settings={"judge_engine": judge})
    try:
        person = Client(running.url, verbose=False)
        out = named(person.predict("terminal", DEMO_RECORDING, 1, api_name="/load_turn"))
        person.predict(out["action"], engine="persistence", api_name="/step")
        yield running, person
    finally:
        running.close()


def test_an_embedded_judge_is_refused_up_front_with_the_setting_to_change(tmp_path):
    with a_step_to_judge(tmp_path, "transformers") as (running, person):
        verdict, _ = person.predict(api_name="/judge_step")  # the job line: no job started
        assert "awp-inline-error" in verdict and "AWP_JUDGE_ENGINE" in verdict
        assert [job.kind for job in running.context.jobs.listed()] == ["step"]


def test_a_judge_job_is_of_its_page_s_kind_so_a_job_link_reopens_it_there(tmp_path):
    # The persistence baseline as judge: no verdict, but a real job, quickly ended.
    with a_step_to_judge(tmp_path, "persistence") as (running, person):
        line, out = follow_job(person, "judge_step")
        assert "Judging prediction" in line and "done in" in line
        # Shown even when the job ended before its start answered (the poll shows it).
        assert "no usable verdict" in out[-1]
        [job] = [job for job in running.context.jobs.listed() if job.kind != "step"]
        assert job.kind == "judge-playground"  # the Playground's panel: `?job=` opens it there


def test_the_benchmark_default_selection_is_the_baselines(app):
    config = app.blocks.config
    engines = next(
        c for c in config["components"] if c.get("props", {}).get("elem_id") == "bm-engines"
    )
    assert sorted(engines["props"]["value"]) == ["oracle", "persistence"]
