"""Answer from the record: an exact match of a real step answers it without the model."""

from __future__ import annotations

import json

from backend.domains.prompts import PromptLibrary
from backend.engines.baselines import BaselineEngine
from backend.grounding.record import RecordBook
from backend.grounding.transitions import FixedTransitions, Transition
from backend.simulate import Simulator
from backend.types import ChatRequest, SimRequest, Turn

LS = json.dumps([{"keystrokes": "ls\n", "duration": 0.1}])
SPACED = '[{"keystrokes":"ls\\n","duration":0.1}]'
STATE = "user@host:~$ "


def transition(ref: str, after: str, trajectory: str, before: str = STATE) -> Transition:
    return Transition(ref, "terminal", before, LS, after, trajectory)


class Counting:
    """A model that says what it is asked and counts the requests."""

    def __init__(self) -> None:
        self.asked = 0

    def __call__(self, request: ChatRequest) -> str:
        self.asked += 1
        return "the model's guess"


def simulator(*transitions: Transition) -> tuple[Simulator, Counting, RecordBook]:
    model = Counting()
    book = RecordBook(FixedTransitions(list(transitions)))
    return Simulator(BaselineEngine("counting", model), PromptLibrary(), None, book), model, book


def test_an_exact_match_answers_from_the_record_without_the_model() -> None:
    sim, model, _ = simulator(transition("rec#3", "a.txt\nuser@host:~$ ", "rec"))
    # the same state with other whitespace, the same action in another JSON spelling
    request = SimRequest(domain="terminal", initial_state="user@host:~$   ", action=SPACED)
    answered, asked = sim.step_batch([request, request.model_copy(update={"initial_state": "$"})])
    assert answered.answered_by == "record" and answered.engine == "record"
    assert answered.observation == "a.txt\nuser@host:~$ " and answered.grounded_by == ["rec#3"]
    assert answered.model == "rec#3" and answered.confidence == 1.0
    assert asked.answered_by == "model" and asked.observation == "the model's guess"
    assert model.asked == 1
    streamed = list(sim.stream(request))
    assert len(streamed) == 1 and streamed[0].answered_by == "record" and model.asked == 1


def test_the_state_before_is_the_last_turn_s_observation() -> None:
    sim, _, _ = simulator(transition("rec#2", "b\n$ ", "rec", before="a\n$ "))
    request = SimRequest(
        domain="terminal",
        initial_state=STATE,
        history=[Turn(action=LS, observation="a\n$ ")],
        action=LS,
    )
    assert sim.step(request).answered_by == "record"


def test_its_own_recording_never_answers_a_step() -> None:
    sim, model, _ = simulator(transition("bench#1", "x\n$ ", "bench"))
    request = SimRequest(
        domain="terminal", initial_state=STATE, action=LS, grounding_exclude=("bench",)
    )
    assert sim.step(request).answered_by == "model" and model.asked == 1


def test_disagreeing_records_leave_the_step_to_the_model() -> None:
    sim, model, _ = simulator(transition("a#1", "one\n$ ", "a"), transition("b#1", "two\n$ ", "b"))
    assert (
        sim.step(SimRequest(domain="terminal", initial_state=STATE, action=LS)).answered_by
        == "model"
    )
    assert model.asked == 1
    same, _, book = simulator(
        transition("a#1", "one\n$ ", "a"), transition("b#1", "one  \n$ ", "b")
    )
    assert (
        same.step(SimRequest(domain="terminal", initial_state=STATE, action=LS)).answered_by
        == "record"
    )
    assert book.builds == 1
