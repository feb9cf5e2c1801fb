"""The full loop through the app's named endpoints with gradio_client: simulate, annotate, export.

Baseline engines keep it fast: these tests are about the UI plumbing, not the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from gradio_client import Client

from storage.run_kinds import BenchRun, RolloutRun
from tests.support.annotate import annotate, submit
from tests.support.app_server import RunningApp, follow_job, named, start_app

TERMINAL = "mkrww/errors"
CORRECTED = "cat: /nonexistent_file_xyz: No such file or directory"
RATINGS = {"format": "5", "factuality": "2", "consistency": "4", "realism": "3", "quality": "2"}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(tmp_path_factory.mktemp("ui-loop"))
    yield running
    running.close()


@pytest.fixture
def client(app: RunningApp) -> Client:
    return Client(app.url, verbose=False)


def load(client: Client, trajectory: str = TERMINAL, domain: str = "terminal", start: int = 0):
    return named(client.predict(domain, trajectory, start, api_name="/load_turn"))


def prediction_id(out: dict) -> int:
    """The stored prediction's id, as the step's status line reports it."""
    found = re.search(r"prediction #(\d+)", out["status"])
    assert found is not None, out["status"]
    return int(found.group(1))


def test_every_event_is_a_named_endpoint(client: Client):
    endpoints = set(client.view_api(return_format="dict", print_info=False)["named_endpoints"])
    expected = {
        "/select_domain",
        "/load_turn",
        "/step",
        "/validate_action",
        "/rewind",
        "/branch",
        "/replay_load",
        "/replay_run",
        "/annotate_next",
        "/annotate_submit",
        "/export_preview",
        "/export_file",
        "/bench_run",
        "/rollout_run",
        "/rollout_past",
        "/whoami",
    }
    assert expected <= endpoints


def test_recorded_step_shows_prediction_and_real_state(client: Client):
    loaded = load(client)
    assert '"keystrokes": "cat /nonexistent_file_xyz\\n"' in loaded["action"]
    out = named(client.predict(loaded["action"], engine="oracle", api_name="/step"))
    assert CORRECTED in out["predicted"] and CORRECTED in out["real"]
    assert "Identical." in out["diff"]
    assert "1.00" in out["scores"]
    assert out["timeline"]["data"][0][2] == "oracle (baseline:oracle)"
    assert "exit=$?" in out["action"]  # the recording's next action is pre-filled


def test_bad_action_is_refused_before_the_engine(client: Client, app: RunningApp):
    load(client)
    message = client.predict("not json", api_name="/validate_action")
    assert "not valid JSON" in message
    with pytest.raises(Exception, match="not valid JSON") as caught:
        client.predict("not json", engine="persistence", api_name="/step")
    assert "Traceback" not in str(caught.value)


def test_simulate_annotate_export_dpo(client: Client, app: RunningApp):
    loaded = load(client)
    stepped = named(client.predict(loaded["action"], engine="persistence", api_name="/step"))
    assert CORRECTED in stepped["real"]
    item = annotate(client, "open", prediction_id(stepped))
    assert "persistence" in item["header"]
    tags = ["stale copy of the previous state"]
    saved = submit(
        client,
        CORRECTED,
        "reject",
        **RATINGS,
        domain="terminal",
        tags=tags,
        notes="copied the empty screen",
    )
    assert "Saved version 1" in saved["message"]
    count, preview, error = client.predict(
        format="dpo", domain="terminal", since="", min_rating=0, api_name="/export_preview"
    )
    assert count.startswith("**") and json.loads(preview) and not error
    path, message, _ = client.predict(
        "jsonl", format="dpo", domain="terminal", since="", min_rating=0, api_name="/export_file"
    )
    rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]
    assert "rows" in message and rows
    row = next(r for r in rows if r["engine"] == "persistence")
    assert row["chosen"][-1]["content"].endswith(CORRECTED)
    assert CORRECTED not in row["rejected"][-1]["content"]
    assert row["annotator"].startswith("anonymous-")  # this browser's own anonymous name
    assert row["prompt"][0]["role"] == "system"


def test_every_step_is_stored(client: Client, app: RunningApp):
    loaded = load(client, start=2)
    client.predict(loaded["action"], engine="persistence", api_name="/step")
    sessions = app.context.sessions.list_sessions(domain="terminal")
    stored = app.context.sessions.load_session(sessions[0].id)
    assert len(stored.steps) == 3  # two recorded turns of history, then the simulated one
    assert stored.steps[0].origin == "recorded" and stored.steps[2].prediction is not None


def test_replay_run_scores_every_turn_and_feeds_the_queue(client: Client):
    client.predict("web", api_name="/replay_domain")
    loaded = client.predict("miniwob/click-checkboxes_20", api_name="/replay_load")
    assert "3 turns" in loaded[0]
    strip, *_ = client.predict(
        1, engine="oracle", history_mode="closed_loop", api_name="/replay_run"
    )
    assert strip.count("awp-cell awp-good") == 3
    assert "oracle · closed_loop" in strip
    pending = annotate(client, "next", "web")
    assert "#" in pending["header"] and "oracle" in pending["header"]


def test_benchmark_run_is_listed_and_shown_from_sql(client: Client, app: RunningApp):
    line, shown = follow_job(
        client, "bench_run", "bundled", ["persistence", "oracle"], "(no judge)", 6, "teacher_forced"
    )
    assert 'data-status="finished"' in line and "done in" in line and "(12 items)" in line
    status, table, chart, chart_note, past, _ = shown[-6:]
    assert "Finished" in status
    engines = [row[0] for row in table["value"]["data"]]
    assert engines == ["persistence", "oracle"]
    assert chart["value"].endswith(".png") and chart["visible"] and not chart_note["visible"]
    run_id, _, dataset, listed, state, items, macro = past["value"]["data"][0]
    assert (dataset, listed, state, items) == ("bundled", "persistence, oracle", "finished", "12")
    assert "oracle 100.0" in macro

    [run] = [r for r in app.context.runs.list_runs(BenchRun) if str(r.id) == run_id]
    assert run.owner == "anonymous" and run.done == 12 and run.out_dir is not None
    (Path(run.out_dir) / "results.json").unlink()  # the page reads the stored summary, not files
    note, shown, shown_chart, shown_note = client.predict(run_id, api_name="/bench_show")
    assert f"Run #{run_id}: bundled, teacher_forced." == note
    assert shown["value"]["data"] == table["value"]["data"]
    assert shown_chart["value"].endswith(".png") and not shown_note["visible"]
    with pytest.raises(Exception, match="No benchmark run called"):
        client.predict("latest", api_name="/bench_show")


def test_rollout_run_is_recorded_and_listed(client: Client, app: RunningApp):
    line, shown = follow_job(client, "rollout_run", "terminal", "replay", "oracle", 2, 3, "sim")
    assert 'data-status="finished"' in line and "steps)" in line
    # The episodes' state and the step view's column are no API outputs; the summary was hidden.
    status, summary, *_, past, past_empty = shown[-9:]
    assert summary["visible"] and not past_empty["visible"]
    assert "Finished 2 sim episode(s)" in status
    assert summary["value"]["data"][0][:2] == ["terminal", 2]
    run_id, _, domains, agent, world, env, state, episodes = past["value"]["data"][0]
    assert (domains, agent, env, state, episodes) == (
        "terminal",
        "replay",
        "sim",
        "finished",
        "2/2",
    )
    assert world.startswith("oracle:")
    listed, _ = client.predict(api_name="/rollout_past")
    assert listed["value"]["data"][0][0] == run_id
    stored = app.context.runs.get(RolloutRun, int(run_id))
    assert stored.owner == "anonymous" and stored.results["episodes"] == 2
