"""The step path on the real transformers engine: a history too long for the context is cut.

The tiny random model (`tests.support.tiny_model`, a 4,096-token context) is a real model behind
the real engine: its tokenizer counts the prompt, its config says the context, and it generates.
A terminal session whose history holds about 6,000 tokens then runs, batched, streamed and
stored, without its oldest turns and saying how many went; a step whose action alone overflows
the context still fails with the engine's clear `PromptTooLongError`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.domains.prompts import PromptLibrary
from backend.engines.base import Engine, EngineConfig, build_engine
from backend.errors import PromptTooLongError
from backend.history import drop_oldest
from backend.recording import NewSession
from backend.simulate import Simulator, build_messages, canonical
from backend.stepping import StepOutcome, run_step, step_batch
from backend.types import ChatRequest, HistoryMode, Prediction, SimRequest
from storage.db import Database
from storage.export_source import ExportQuery, iter_export_records
from storage.sessions import SessionStore
from tests.support.long_history import keys, long_session
from tests.support.tiny_model import MAX_POSITIONS

BUDGET = 8


@pytest.fixture(scope="module")
def engine(tiny_model_dir: Path) -> Iterator[Engine]:
    engine = build_engine(EngineConfig(name="transformers", model=str(tiny_model_dir)))
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def simulator(engine: Engine) -> Simulator:
    return Simulator(engine, PromptLibrary())


def test_the_whole_history_would_not_fit(engine: Engine, simulator: Simulator) -> None:
    request = long_session(12, BUDGET)
    messages = build_messages(request, simulator.system_prompt(request))
    uncut = ChatRequest(messages=messages, params=request.params)

    with pytest.raises(PromptTooLongError, match=str(MAX_POSITIONS)):
        engine.generate([uncut])


def check_cut(prediction: Prediction, request: SimRequest, system: str) -> None:
    dropped = prediction.history_dropped
    assert 0 < dropped < len(request.history)
    assert prediction.prompt_tokens + BUDGET <= MAX_POSITIONS
    kept = canonical(drop_oldest(request, dropped))
    assert prediction.messages == build_messages(kept, system)
    # the last dropped turn's screen is the first kept turn's current state, turns from 1
    first = prediction.messages[1].content
    assert first.startswith("### Turn 1\n**Current State:**\n")
    assert f"log {dropped - 1}: entry value" in first


def test_a_too_long_history_is_cut_and_the_step_runs_batched_and_streamed(
    simulator: Simulator,
) -> None:
    request = long_session(12, BUDGET)
    system = simulator.system_prompt(request)

    ((sample,),) = step_batch(simulator, [request])
    streamed = list(simulator.stream(request))[-1]

    assert sample.error is None
    check_cut(sample.made(), request, system)
    assert isinstance(streamed, Prediction)
    assert streamed.history_dropped == sample.made().history_dropped
    assert streamed.messages == sample.made().messages


def test_the_cut_is_stored_and_exported(simulator: Simulator, database: Database) -> None:
    request = long_session(12, BUDGET)
    store = SessionStore(database.session_factory)
    target = NewSession(
        "terminal", HistoryMode.TEACHER_FORCED, request.params, engine="transformers", model="tiny"
    )

    *_, outcome = run_step(simulator, store, target, request)

    assert isinstance(outcome, StepOutcome)
    dropped = outcome.prediction.history_dropped
    assert dropped > 0
    stored = store.load_session(outcome.session_id).steps[-1].prediction
    assert stored is not None and stored.prediction.history_dropped == dropped
    (record,) = iter_export_records(database.session_factory, ExportQuery(annotated_only=False))
    assert record.history_dropped == dropped == record.links()["history_dropped"]


def test_an_action_too_long_without_any_history_is_still_refused(simulator: Simulator) -> None:
    request = long_session(3, BUDGET).model_copy(update={"action": keys("echo " + "word " * 5000)})

    ((sample,),) = step_batch(simulator, [request])

    assert isinstance(sample.error, PromptTooLongError)
    assert str(MAX_POSITIONS) in str(sample.error)
    with pytest.raises(PromptTooLongError, match="Shorten the history or the system prompt"):
        simulator.step(request)
