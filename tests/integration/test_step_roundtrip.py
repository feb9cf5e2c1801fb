"""Exported prompt == messages sent, for every history mode, both edges and every session shape.

An engine that records every chat it is sent (and answers with a distinct text each time, so
each step's prediction can be told apart in later prompts) stands in for the model: the test is
about the step path, storage and export, not about generation. The Playground is the real app
driven by gradio_client; the CLI is `awp simulate` run in-process, so both reach the recorder.

Shapes: blank start, start from a recording, start mid-recording, after a rewind, after a
branch, and CLI continuations of every one of those sessions (`awp simulate --session`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from gradio_client import Client
from typer.testing import CliRunner

from app.cli import build_cli
from backend.data.bundled import load_bundled
from backend.domains.prompts import PromptLibrary
from backend.engines.base import ENGINES, NO_CAPABILITIES, EngineConfig, EngineSpec
from backend.engines.baselines import BaselineEngine
from backend.export.prompt import prompt_messages
from backend.export.records import ExportContext
from backend.types import ChatMessage, ChatRequest, HistoryMode
from storage.annotations import AnnotationInput, Ratings
from storage.db import session_scope
from storage.export_source import ExportQuery, iter_export_records
from storage.models import PredictionRow
from tests.support.app_server import RunningApp, named, start_app
from tests.support.status import session_of

DEMONSTRATIONS = "\n\n## Demonstrations\n\n"
SENT: list[ChatRequest] = []
"""Every chat the capturing engine received, in order."""

TRAJECTORY = "swe-agent/rock"
BLANK_SCREEN = "user@host:~$ "
OFF = [
    '[{"keystrokes": "echo one\\n", "duration": 0.1}]',
    '[{"keystrokes": "pwd\\n", "duration": 1}]',
]


def _answer(request: ChatRequest) -> str:
    SENT.append(request)
    return f"PREDICTED {len(SENT)}\n$ "


def _capture(config: EngineConfig) -> BaselineEngine:
    return BaselineEngine("capture", _answer)


if "capture" not in ENGINES:
    ENGINES.register("capture", EngineSpec(_capture, NO_CAPABILITIES))


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    # Every step must reach the engine: an exact match in real data (an earlier mode's
    # corrections) would be answered from the record, with no chat to compare.
    settings = {"record_answers": False}
    running = start_app(tmp_path_factory.mktemp("roundtrip"), engine="capture", settings=settings)
    yield running
    running.close()


class Sent:
    """(prediction id, the exact messages the engine received) for every step taken."""

    def __init__(self) -> None:
        self.by_prediction: dict[int, list[ChatMessage]] = {}
        self.sessions: dict[str, int] = {}
        self.last: dict[int, list[ChatMessage]] = {}

    def session(self, shape: str, session_id: int) -> None:
        """Name a session by its shape, remembering the chat of its last step."""
        self.sessions[shape] = session_id
        self.last[session_id] = list(SENT[-1].messages)

    def took(self, prediction_id: int) -> list[ChatMessage]:
        messages = list(SENT[-1].messages)
        self.by_prediction[prediction_id] = messages
        return messages


def ui_step(client: Client, sent: Sent, action: str, mode: HistoryMode) -> tuple[int, str]:
    """One Playground step; returns the session id and the predicted text."""
    out = named(client.predict(action, engine="capture", history_mode=mode.value, api_name="/step"))
    prediction = int(re.search(r"prediction #(\d+)", out["status"]).group(1))
    session = session_of(out["status"])
    sent.took(prediction)
    return session, re.search(r"PREDICTED \d+", out["predicted"]).group(0)


def recorded(index: int) -> str:
    return next(t for t in load_bundled() if t.id == TRAJECTORY).turns[index].action


def ui_sessions(app: RunningApp, sent: Sent, mode: HistoryMode) -> None:
    """Playground sessions of every shape, each with steps on and off the recording."""
    client = Client(app.url, verbose=False)
    client.predict("terminal", BLANK_SCREEN, api_name="/start_blank")
    _, first = ui_step(client, sent, OFF[0], mode)
    sent.session("blank", ui_step(client, sent, OFF[1], mode)[0])
    # The reproduced bug: off the recording, step 2 went on from the model's own step 1.
    second = [m.content for m in SENT[-1].messages]
    if mode is HistoryMode.BLIND:
        assert f"**Current State:**\n{first}" in second[1]
    else:
        assert second[2] == f"**Environment Observation:**\n{first}\n$"

    client.predict("terminal", TRAJECTORY, 0, api_name="/load_turn")
    ui_step(client, sent, recorded(0), mode)
    ui_step(client, sent, recorded(1), mode)
    sent.session("recording", ui_step(client, sent, OFF[0], mode)[0])

    client.predict("terminal", TRAJECTORY, 3, api_name="/load_turn")
    ui_step(client, sent, recorded(3), mode)
    sent.session("mid-recording", ui_step(client, sent, OFF[1], mode)[0])

    client.predict("terminal", TRAJECTORY, 0, api_name="/load_turn")
    ui_step(client, sent, recorded(0), mode)
    ui_step(client, sent, OFF[0], mode)
    client.predict(1, api_name="/rewind")
    sent.session("rewound", ui_step(client, sent, OFF[1], mode)[0])

    client.predict("terminal", BLANK_SCREEN, api_name="/start_blank")
    ui_step(client, sent, OFF[0], mode)
    ui_step(client, sent, OFF[1], mode)
    client.predict(1, api_name="/branch")
    sent.session("branched", ui_step(client, sent, OFF[0], mode)[0])


def cli_step(sent: Sent, *args: str) -> int:
    """One `awp simulate --json` step in-process; returns its session id."""
    result = CliRunner().invoke(build_cli(), ["simulate", "--engine", "capture", "--json", *args])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout.strip().splitlines()[-1])
    messages = sent.took(out["prediction_id"])
    assert [m.model_dump() for m in messages] == out["messages"]  # --json prints what was sent
    return int(out["session_id"])


def ungrounded(system: ChatMessage) -> str:
    """A system message without the demonstrations grounding appended to it."""
    return system.content.split(DEMONSTRATIONS)[0]


def cli_sessions(sent: Sent, mode: HistoryMode, trajectory_file: Path) -> None:
    """CLI sessions of every shape, and CLI continuations of the Playground's sessions."""
    history = ["--history-mode", mode.value]
    blank = cli_step(sent, "--domain", "terminal", "--action", OFF[0], *history)
    cli_step(sent, "--session", str(blank), "--action", OFF[1])
    whole = ["--history", str(trajectory_file)]
    cli_step(sent, *whole, "--turn", "1", *history)
    middle = cli_step(sent, *whole, "--turn", "4", *history)
    cli_step(sent, "--session", str(middle), "--action", OFF[0])
    for shape in ("blank", "recording", "mid-recording", "rewound", "branched"):
        session = sent.sessions[shape]
        cli_step(sent, "--session", str(session), "--action", OFF[1])
        if mode is not HistoryMode.BLIND:
            # The continuation shows the history the Playground's last step showed, then that
            # step's action and what followed it: the stored session is the session the model saw.
            # The system prompt is the same but for its demonstrations: grounding picks the real
            # transitions nearest to each step's own action.
            before = sent.last[session]
            now = SENT[-1].messages
            assert now[1 : len(before)] == before[1:], shape
            assert ungrounded(now[0]) == ungrounded(before[0]), shape


def annotate_all(app: RunningApp, ids: list[int]) -> None:
    """A rejecting correction of every prediction in `ids`, so every one is exported."""
    store = app.context.annotations
    ratings = Ratings(format=3, factuality=2, consistency=3, realism=3, quality=2)
    with session_scope(app.context.database.session_factory) as session:
        query = session.query(PredictionRow.id, PredictionRow.observation)
        rows = query.filter(PredictionRow.id.in_(ids)).all()
    for prediction_id, observation in rows:
        correction = AnnotationInput(
            corrected_observation=f"{observation}\ncorrected", ratings=ratings, verdict="reject"
        )
        store.submit(prediction_id, "checker", correction)


def exported_prompts(tmp_path: Path, name: str) -> dict[int, list[dict[str, str]]]:
    out = tmp_path / f"{name}.jsonl"
    result = CliRunner().invoke(build_cli(), ["export", "--format", "sft", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines() if line]
    return {row["prediction_id"]: row["prompt"] for row in rows}


def rebuilt_prompts(app: RunningApp) -> dict[int, list[dict[str, str]]]:
    """Every prediction's prompt as an export rebuilds it when no chat was stored (older data).

    Read before any annotation: an annotator's correction of a step off the recording becomes
    its real state, and from then on later prompts show it (which is why chats are stored).
    """
    context = ExportContext(system_prompt=PromptLibrary().system_prompt)
    query = ExportQuery(annotated_only=False)
    return {
        record.prediction_id: [
            m.model_dump()
            for m in prompt_messages(replace(record, messages=None), context.prompt_of(record))
        ]
        for record in iter_export_records(app.context.database.session_factory, query)
    }


@pytest.mark.parametrize("mode", list(HistoryMode))
def test_exported_prompt_is_the_chat_sent(
    mode: HistoryMode,
    app: RunningApp,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWP_DATA_DIR", str(app.settings.data_dir))
    monkeypatch.setenv("AWP_RECORD_ANSWERS", "0")  # as the app's: see `app`
    trajectory = next(t for t in load_bundled() if t.id == TRAJECTORY)
    trajectory_file = tmp_path / "trajectory.json"
    trajectory_file.write_text(trajectory.model_dump_json(), encoding="utf-8")
    sent = Sent()
    ui_sessions(app, sent, mode)
    cli_sessions(sent, mode, trajectory_file)

    # Predictions stored before chats were kept: the one history rule rebuilds the same chats.
    rebuilt = rebuilt_prompts(app)
    for prediction_id, messages in sent.by_prediction.items():
        assert rebuilt[prediction_id] == [m.model_dump() for m in messages], prediction_id

    annotate_all(app, list(sent.by_prediction))
    exported = exported_prompts(tmp_path, f"stored-{mode.value}")
    for prediction_id, messages in sent.by_prediction.items():
        assert exported[prediction_id] == [m.model_dump() for m in messages], prediction_id
