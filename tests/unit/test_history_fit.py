"""Fitting a step's prompt to the engine's context: the oldest turns go, by the one history rule.

`fit_context` is pure; the Simulator's decision of when to ask it runs on a real
`BaselineEngine` that also says a context length and counts a prompt as its characters, so the
numbers are easy to check by hand. It is registered (for each test only) with the
`context_window` capability, which is what the step path reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from backend.domains.prompts import PromptLibrary
from backend.engines.base import ENGINES, NO_CAPABILITIES, EngineSpec, capabilities_of
from backend.engines.baselines import BaselineEngine
from backend.history import drop_oldest, fit_context
from backend.simulate import Simulator, build_messages
from backend.types import (
    ChatRequest,
    HistoryMode,
    SamplingParams,
    SimRequest,
    Turn,
    VerbatimChat,
)
from tests.support.postgres import fake_prediction
from ui.views import status_html

ACTION = '[{"keystrokes": "ls\\n", "duration": 0.1}]'


def request(turns: int, budget: int = 10, **changes: object) -> SimRequest:
    history = [Turn(action=ACTION, observation=f"screen {i} " + "x" * 100) for i in range(turns)]
    return SimRequest(
        domain="terminal",
        system_prompt="You simulate a terminal.",
        initial_state="$ ",
        history=history,
        action=ACTION,
        params=SamplingParams(max_new_tokens=budget),
        **changes,
    )


def size(r: SimRequest) -> int:
    """A prompt's "tokens": the characters of its messages."""
    return sum(len(m.content) for m in build_messages(r, r.system_prompt or ""))


def test_a_prompt_that_fits_is_sent_as_it_is() -> None:
    whole = request(4)
    assert fit_context(whole, size, size(whole) + 10, budget=10) is whole


def test_the_fewest_oldest_turns_go_and_their_state_becomes_the_start() -> None:
    whole = request(6)
    context = size(whole) - 150 + 10  # about two turns too long

    fitted = fit_context(whole, size, context, budget=10)

    assert size(fitted) + 10 <= context
    dropped = len(whole.history) - len(fitted.history)
    assert dropped >= 1 and fitted.history == whole.history[dropped:]
    assert fitted.initial_state == whole.history[dropped - 1].observation
    one_less = fit_context(whole, size, context + 1_000, budget=10)
    assert len(one_less.history) > len(fitted.history)  # not one turn more than needed goes


def test_a_budget_larger_than_the_context_keeps_one_token_of_room() -> None:
    whole = request(3, budget=100_000)
    context = size(drop_oldest(whole, 3)) + 50  # no history leaves 50 tokens, not the budget

    fitted = fit_context(whole, size, context, budget=100_000)

    assert fitted.history == [] and size(fitted) + 1 <= context


def test_what_cannot_fit_even_without_history_is_sent_as_it_is() -> None:
    whole = request(3)
    assert fit_context(whole, size, size(drop_oldest(whole, 3)), budget=10) is whole


class MeasuredEngine(BaselineEngine):
    """The persistence baseline, saying a context and counting a prompt's characters."""

    def __init__(self, context: int | None) -> None:
        super().__init__("measured", lambda r: "$ ")
        self.context = context
        self.counted: list[int] = []

    def context_length(self) -> int | None:
        return self.context

    def prompt_tokens(self, request: ChatRequest) -> int:
        self.counted.append(1)
        return sum(len(m.content) for m in request.messages)


@pytest.fixture(autouse=True)
def measured_is_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The measured engine declares a context window, as transformers and vLLM do."""
    capabilities = replace(NO_CAPABILITIES, context_window=True)
    spec = EngineSpec(lambda config: MeasuredEngine(None), capabilities)
    monkeypatch.setitem(ENGINES._items, "measured", spec)


def step(engine: BaselineEngine, requests: Sequence[SimRequest]) -> list[int]:
    simulator = Simulator(engine, PromptLibrary())
    return [p.history_dropped for p in simulator.step_batch(list(requests))]


def test_the_step_path_cuts_what_the_engine_cannot_hold_and_says_so() -> None:
    long, short = request(8), request(1)
    engine = MeasuredEngine(context=size(long) - 300)
    assert capabilities_of(engine).context_window

    prepared = Simulator(engine, PromptLibrary()).prepare(long)
    dropped = step(engine, [long, short])

    assert dropped[0] == len(long.history) - len(prepared.request.history) > 0
    assert dropped[1] == 0
    assert sum(len(m.content) for m in prepared.chat.messages) + 10 <= engine.context


def test_nothing_is_cut_where_the_context_is_unknown_or_nothing_can_go() -> None:
    long = request(8)
    tight = size(long) - 300
    verbatim = request(8, verbatim=VerbatimChat(turns=[("u", "a")] * 8, current="now"))
    blind = request(8, history_mode=HistoryMode.BLIND)

    assert step(MeasuredEngine(context=None), [long]) == [0]
    assert step(BaselineEngine("plain", lambda r: "$ "), [long]) == [0]
    engine = MeasuredEngine(context=tight)
    assert step(engine, [verbatim, blind, request(0)]) == [0, 0, 0]
    assert engine.counted == []  # an official row, a blind step or no history: never measured


def test_the_status_line_says_how_many_turns_were_cut() -> None:
    made = fake_prediction("$ ")

    assert "cut to fit" not in status_html(made)
    assert "3 oldest turns cut to fit the context" in status_html(
        made.model_copy(update={"history_dropped": 3})
    )
