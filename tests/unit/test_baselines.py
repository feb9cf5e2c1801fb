"""The persistence and oracle baselines: what they predict and how they name themselves."""

from __future__ import annotations

import pytest

from backend.domains.turns import format_assistant_turn, format_user_turn
from backend.engines.base import EngineConfig, baseline_names, build_engine
from backend.errors import EngineRequestError
from backend.parsing import parse_output
from backend.types import ChatMessage, ChatRequest

SCREEN = "user@host:~$ ls\nnotes.txt\nuser@host:~$ "


def request(*messages: tuple[str, str], reference: str | None = None) -> ChatRequest:
    chat = [ChatMessage(role="system", content="You simulate a terminal.")]
    chat += [ChatMessage.model_validate({"role": r, "content": c}) for r, c in messages]
    return ChatRequest(messages=chat, reference=reference)


def predict(name: str, chat: ChatRequest) -> str:
    return build_engine(EngineConfig(name=name)).generate([chat])[0].text


def test_persistence_repeats_the_last_observation() -> None:
    chat = request(
        ("user", format_user_turn(1, '[{"keystrokes": "ls\\n"}]')),
        ("assistant", format_assistant_turn("first screen")),
        ("user", format_user_turn(2, '[{"keystrokes": "pwd\\n"}]')),
        ("assistant", format_assistant_turn(SCREEN)),
        ("user", format_user_turn(3, '[{"keystrokes": "cat notes.txt\\n"}]')),
    )

    assert parse_output(predict("persistence", chat)).observation == SCREEN.strip()


def test_persistence_without_history_repeats_the_current_state() -> None:
    chat = request(("user", format_user_turn(1, '[{"keystrokes": "ls\\n"}]', SCREEN)))

    assert predict("persistence", chat) == SCREEN


def test_persistence_with_nothing_before_predicts_nothing() -> None:
    chat = request(("user", format_user_turn(1, '{"name": "list_files", "arguments": {}}')))

    assert predict("persistence", chat) == ""


def test_oracle_returns_the_recorded_observation() -> None:
    chat = request(("user", format_user_turn(1, "[]")), reference="the real screen")

    assert predict("oracle", chat) == "the real screen"


def test_oracle_without_a_recording_is_refused() -> None:
    with pytest.raises(EngineRequestError, match="recorded observation"):
        predict("oracle", request(("user", format_user_turn(1, "[]"))))


@pytest.mark.parametrize("name", ["persistence", "oracle"])
def test_baselines_are_named_as_baselines(name: str) -> None:
    engine = build_engine(EngineConfig(name=name))
    chat = request(("user", format_user_turn(1, "[]")), reference="x")

    completion = engine.generate([chat])[0]
    *deltas, last = list(engine.stream(chat))

    assert (engine.name, engine.model) == (name, f"baseline:{name}")
    assert (completion.engine, completion.model) == (name, f"baseline:{name}")
    assert completion.finish_reason == "baseline"
    assert "".join(d.content_delta for d in deltas) == completion.text
    assert last.completion == completion


def test_baselines_are_the_engines_registered_as_baselines() -> None:
    assert baseline_names() == ["persistence", "oracle"]
