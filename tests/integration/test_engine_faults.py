"""The openai engine against servers that misbehave on purpose, over real sockets.

Each broken answer (garbage events, a connection dropped mid-stream, a 200 that is not what was
asked for, a server that trickles forever) must end in an engine error that names the server, and
the CLI and the UI must show that error and store nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gradio_client import Client

from app.context import build_context
from backend.engines.base import Engine, EngineConfig, build_engine
from backend.errors import EngineRequestError, EngineUnavailableError
from backend.types import ChatMessage, ChatRequest, SamplingParams
from tests.support.app_server import RunningApp, named, start_app
from tests.support.fake_openai import (
    FakeOpenAIServer,
    cut_stream,
    event_stream,
    events_reply,
    json_reply,
    raw_reply,
    serve_fake_openai,
    trickle,
)

REPO = Path(__file__).resolve().parents[2]
TERMINAL_ACTION = '[{"keystrokes": "ls\\n", "duration": 0.1}]'
HELLO = {"choices": [{"delta": {"content": "hello"}}]}
FINISH = {"choices": [{"delta": {}, "finish_reason": "stop"}]}
HTML = b"<html><body><h1>502 Bad Gateway</h1></body></html>"


def chat() -> ChatRequest:
    return ChatRequest(
        messages=[ChatMessage(role="user", content="ls")],
        params=SamplingParams(temperature=0.0, max_new_tokens=5),
    )


def engine_for(server: FakeOpenAIServer, **options: Any) -> Engine:
    config = EngineConfig(name="openai", base_url=server.base_url, model="m", **options)
    return build_engine(config)


# --- streams ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "error", "message"),
    [
        (events_reply([HELLO, "{not json"]), EngineRequestError, "not a chat completion chunk"),
        (events_reply([HELLO, [1, 2]]), EngineRequestError, "not a chat completion chunk"),
        (cut_stream([HELLO]), EngineUnavailableError, "broke off its answer"),
        (events_reply([HELLO], done=False), EngineUnavailableError, "before the answer was"),
        (events_reply([], done=False), EngineUnavailableError, "before the answer was"),
        (json_reply(200, {"id": "x", "choices": []}), EngineRequestError, "application/json"),
        (raw_reply(200, "text/html", HTML), EngineRequestError, "502 Bad Gateway"),
    ],
    ids=["bad-json", "not-an-object", "cut", "no-end", "empty", "json-body", "html-body"],
)
def test_a_broken_stream_is_an_engine_error_naming_the_server(
    fake_openai: FakeOpenAIServer, reply: Any, error: type[Exception], message: str
) -> None:
    fake_openai.script.append(reply)

    with pytest.raises(error, match=message) as caught:
        list(engine_for(fake_openai).stream(chat()))

    assert fake_openai.base_url in str(caught.value)


def test_a_stream_ended_by_its_finish_reason_needs_no_done(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script.append(events_reply([HELLO, FINISH], done=False))  # transformers serve

    *_, last = engine_for(fake_openai).stream(chat())

    assert last.completion is not None and last.completion.text == "hello"


def test_line_separators_inside_an_event_do_not_split_it(fake_openai: FakeOpenAIServer) -> None:
    text = "one\u2028two\u2029three\x85four\rfive"
    fake_openai.script.append(events_reply([{"choices": [{"delta": {"content": text}}]}, FINISH]))

    *_, last = engine_for(fake_openai).stream(chat())

    assert last.completion is not None and last.completion.text == text


def test_an_error_event_names_the_server(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script.append(events_reply([HELLO, {"error": "out of memory"}]))

    with pytest.raises(EngineRequestError, match="stopped the stream: out of memory") as caught:
        list(engine_for(fake_openai).stream(chat()))

    assert fake_openai.base_url in str(caught.value)


# --- answers read at once ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (raw_reply(200, "text/html", HTML), "Invalid JSON"),
        (json_reply(200, {"id": "x", "object": "chat.completion"}), "choices: Field required"),
        (json_reply(200, {"choices": []}), "choices: List should have at least 1 item"),
        (json_reply(200, ["not", "an", "object"]), "Input should be an object"),
    ],
    ids=["html", "no-choices", "empty-choices", "list"],
)
def test_a_completion_that_is_not_one_is_refused(
    fake_openai: FakeOpenAIServer, reply: Any, message: str
) -> None:
    fake_openai.script.append(reply)

    with pytest.raises(EngineRequestError, match=message) as caught:
        engine_for(fake_openai).generate([chat()])

    assert f"The server at {fake_openai.base_url} did not answer with a chat completion" in str(
        caught.value
    )


# --- the request deadline ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        trickle("text/event-stream", event_stream([HELLO]), interval_s=0.05),
        trickle("application/json", b'{"choices": [{"message": {"content": "x"}}]}', 0.05),
    ],
    ids=["stream", "at-once"],
)
def test_a_trickling_server_is_stopped_by_the_deadline(
    fake_openai: FakeOpenAIServer, reply: Any
) -> None:
    engine = engine_for(fake_openai, timeout_s=30, deadline_s=1)
    fake_openai.script += [reply, reply]

    with pytest.raises(EngineUnavailableError, match=r"within the 1 s request deadline"):
        list(engine.stream(chat()))
    with pytest.raises(EngineUnavailableError, match=r"within the 1 s request deadline"):
        engine.generate([chat()])


def test_retries_do_not_wait_past_the_deadline(fake_openai: FakeOpenAIServer) -> None:
    busy = json_reply(503, {"error": "busy"}, headers={"Retry-After": "30"})
    fake_openai.script += [busy, busy]

    with pytest.raises(EngineUnavailableError, match="request deadline"):
        engine_for(fake_openai, max_retries=3, deadline_s=1).generate([chat()])

    assert len(fake_openai.bodies) == 1  # the 30 s wait was cut to the deadline, and no resend


# --- what a person sees -----------------------------------------------------------------------


def test_the_cli_prints_the_error_and_stores_no_step(
    fake_openai: FakeOpenAIServer, data_dir: Path
) -> None:
    fake_openai.script.append(cut_stream([HELLO]))
    env = os.environ | {"AWP_DATA_DIR": str(data_dir), "PYTHONPATH": str(REPO)}
    args = ["--engine", "openai", "--base-url", fake_openai.base_url, "--model", "m"]

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "simulate",
            "--domain",
            "terminal",
            "--action",
            TERMINAL_ACTION,
            *args,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )

    assert done.returncode == 2, done.stderr
    assert f"Error: The server at {fake_openai.base_url} broke off its answer" in done.stderr
    assert "Traceback" not in done.stderr
    with build_context(data_dir=data_dir) as context:
        sessions = context.sessions.list_sessions()
        assert all(not context.sessions.load_session(s.id).steps for s in sessions)


@pytest.fixture(scope="module")
def bad_server() -> Iterator[FakeOpenAIServer]:
    with serve_fake_openai() as server:
        yield server


@pytest.fixture(scope="module")
def app(
    tmp_path_factory: pytest.TempPathFactory, bad_server: FakeOpenAIServer
) -> Iterator[RunningApp]:
    settings = {"base_url": bad_server.base_url, "model": "m", "max_retries": 0}
    running = start_app(
        tmp_path_factory.mktemp("engine-faults"), engine="openai", settings=settings
    )
    yield running
    running.close()


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (events_reply([HELLO, "{not json"]), "sent an event that is not a chat completion chunk"),
        (cut_stream([HELLO]), "broke off its answer"),
        (json_reply(200, {"choices": []}), "instead of an event stream"),
    ],
    ids=["bad-json", "cut", "json-body"],
)
def test_the_ui_shows_the_error_and_stores_nothing(
    app: RunningApp, bad_server: FakeOpenAIServer, reply: Any, message: str
) -> None:
    bad_server.script.append(reply)
    client = Client(app.url, verbose=False)
    loaded = named(client.predict("terminal", "mkrww/errors", 0, api_name="/load_turn"))

    with pytest.raises(Exception, match=message) as caught:  # gradio's AppError
        client.predict(loaded["action"], api_name="/step")

    assert bad_server.base_url in str(caught.value)
    assert app.context.sessions.list_sessions() == []
