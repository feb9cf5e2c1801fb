"""The compare-and-agree endpoints through gradio_client against the real app (baseline engines)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from gradio_client import Client

from storage.models import PredictionRow, ScoreRow
from tests.support.app_server import (
    ARENA_OUTPUTS,
    REAL_OUTPUTS,
    RunningApp,
    follow_job,
    named,
    start_app,
)
from tests.support.fake_openai import FakeOpenAIServer, json_reply, serve_fake_openai

VERDICT = {
    "scores": {"format": 5, "factuality": 2, "consistency": 4, "realism": 4, "quality": 2},
    "strengths": ["right format"],
    "weaknesses": ["wrong listing"],
}
LS = '[{"keystrokes": "ls\\n", "duration": 1}]'


@pytest.fixture(scope="module")
def judge_server() -> Iterator[FakeOpenAIServer]:
    """A scripted judge: every answer is the same rubric verdict."""
    with serve_fake_openai() as server:
        yield server


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, judge_server) -> Iterator[RunningApp]:
    settings = {
        "arena_contenders": "persistence,oracle",
        "arena_bootstrap_rounds": 20,
        "judge_engine": "openai",
        "judge_model": "judge",
        "base_url": judge_server.base_url,
    }
    running = start_app(tmp_path_factory.mktemp("arena-ui"), settings=settings)
    yield running
    running.close()


def rows(table: dict[str, Any]) -> list[list[Any]]:
    return table["data"]


def battle(person: Client, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """A new battle, followed as a job to its end: what the page shows then, by name."""
    line, out = follow_job(person, "arena_battle", *args, **kwargs)
    assert 'data-status="finished"' in line, line
    return named(out[2:], ARENA_OUTPUTS)


def futures(person: Client, *args: Any) -> tuple[str, Any]:
    """Many futures, followed as a job: its line and the summary and grid (None if refused)."""
    line, out = follow_job(person, "futures", *args)
    return line, None if out is None else out[2:]


def test_arena_vote_reveals_names_and_updates_the_leaderboard(app: RunningApp) -> None:
    person = Client(app.url, verbose=False)
    shown = battle(person, "terminal", "all")
    assert "Action" in shown["context"] and "awp-versus" in shown["sides"]
    assert "baseline:" not in shown["sides"] + shown["context"]  # blind until the vote
    voted = named(person.predict("all", api_name="/arena_vote_a"), ARENA_OUTPUTS)
    names = re.findall(r"was <b>(baseline:\w+)</b>", voted["reveal"])
    assert sorted(names) == ["baseline:oracle", "baseline:persistence"]
    board = rows(voted["people"])
    assert board[0][1] == names[0]  # A won the only vote
    assert {row[4] for row in board} == {1}
    counts = app.context.arena.battle_counts()
    assert [(c.contender_a, c.wins_a) for c in counts] == [(names[0], 1)]


def test_a_second_arena_vote_is_refused_beside_the_buttons_and_keeps_the_board(
    app: RunningApp,
) -> None:
    person = Client(app.url, verbose=False)
    battle(person, "terminal", "all")
    first = named(person.predict("all", api_name="/arena_vote_a"), ARENA_OUTPUTS)
    assert first["message"] == "" and rows(first["people"])
    counts = app.context.arena.battle_counts()
    again = named(person.predict("all", api_name="/arena_vote_b"), ARENA_OUTPUTS)
    assert "awp-inline-error" in again["message"] and "Press New battle first" in again["message"]
    assert app.context.arena.battle_counts() == counts  # nothing stored
    assert again["people"] == {"__type__": "update"}  # left as it was: the board is not wiped


def test_which_one_is_real_vote_reveals_and_counts(app: RunningApp) -> None:
    person = Client(app.url, verbose=False)
    battle(person, "terminal", "all")  # stores a persistence guess
    first = named(person.predict("terminal", api_name="/real_next"), REAL_OUTPUTS)
    assert "Action" in first["context"] and "baseline" not in first["sides"]
    voted = named(person.predict("A", 2, api_name="/real_vote"), REAL_OUTPUTS)
    assert "predicted by <b>persistence · baseline:persistence</b>" in voted["reveal"]
    result = rows(voted["results"])
    assert result[0][:2] == ["baseline:persistence", "all"] and result[0][4] == 1


def test_many_futures_and_judge_this_on_the_playground(app: RunningApp, judge_server) -> None:
    person = Client(app.url, verbose=False)
    person.predict("terminal", "mkrww/errors", 1, api_name="/load_turn")
    line, (summary, grid) = futures(
        person, LS, "Sample K futures of the action above", 3, "", "", "", ""
    )
    assert 'data-status="finished"' in line and "3 futures of one action" in line
    assert "distinct outcomes</b> 1 of 3" in summary and grid.count("prediction #") == 3
    _, (summary, grid) = futures(
        person,
        "",
        "Compare candidate actions from this state",
        2,
        LS,
        '[{"keystrokes": "pwd\\n", "duration": 1}]',
        "",
        "",
    )
    assert "own branch" in summary and grid.count("prediction #") == 2
    # A bad candidate is explained in the job line under the button; no job starts.
    refused, kept = futures(
        person, "", "Compare candidate actions from this state", 2, "nonsense", "", "", ""
    )
    assert "awp-inline-error" in refused and "Candidate 1" in refused
    assert kept is None
    out = person.predict("terminal", "mkrww/errors", 1, api_name="/load_turn")
    person.predict(json.loads(json.dumps(out[0])), api_name="/step")
    answer = f"<final_evaluation>{json.dumps(VERDICT)}</final_evaluation>"
    reply = {"choices": [{"message": {"content": answer}, "finish_reason": "stop"}]}
    judge_server.script.append(json_reply(200, reply))
    line, out = follow_job(person, "judge_step")
    verdict = out[2]
    assert 'data-status="finished"' in line and "Judging prediction" in line
    assert "<b>factuality</b> 2" in verdict and "wrong listing" in verdict
    with app.context.database.session_factory() as session:
        judged = session.query(ScoreRow).filter(ScoreRow.name == "judge.factuality").one()
        assert session.get(PredictionRow, judged.prediction_id).engine == "persistence"
