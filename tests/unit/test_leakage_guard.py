"""Content fingerprints of steps and the one leakage guard over them (pure, no database)."""

from __future__ import annotations

import json

from backend.domains.prompts import PromptLibrary
from backend.engines.baselines import BaselineEngine
from backend.grounding.fingerprint import recording_path, step_path
from backend.grounding.grounder import Grounder
from backend.grounding.leakage import Guard
from backend.grounding.record import RecordBook
from backend.grounding.transitions import FixedTransitions, trajectory_transitions
from backend.simulate import Simulator, canonical
from backend.types import SimRequest, Trajectory, Turn

STATE = "user@host:~$ "


def keys(command: str) -> str:
    return json.dumps([{"keystrokes": command, "duration": 0.1}])


TURNS = [
    Turn(action=keys("ls\n"), observation="ls\na.txt\n" + STATE),
    Turn(action=keys("cat a.txt\n"), observation="cat a.txt\nhello\n" + STATE),
    Turn(action=keys("rm a.txt\n"), observation="rm a.txt\n" + STATE),
]


def recording(trajectory_id: str, turns: list[Turn] = TURNS, start: str = STATE) -> Trajectory:
    return Trajectory(
        id=trajectory_id,
        domain="terminal",
        initial_state=start,
        turns=turns,
        source="test",
        licence="MIT",
    )


def test_the_same_steps_under_other_ids_and_spellings_share_their_fingerprints() -> None:
    respelled = [
        Turn(
            action=json.dumps(json.loads(t.action), indent=2), observation=f"\n{t.observation}  \n"
        )
        for t in TURNS
    ]
    assert recording_path(recording("a")) == recording_path(recording("b", respelled, STATE + " "))
    path = recording_path(recording("a"))
    assert len(set(path)) == 3
    assert step_path("terminal", STATE, TURNS[:1], TURNS[1].action) == path[:2]
    # another first observation: the first step is the same, every later one another
    other = [TURNS[0].model_copy(update={"observation": "ls\nb.txt\n" + STATE}), *TURNS[1:]]
    changed = recording_path(recording("c", other))
    assert changed[0] == path[0] and not set(changed[1:]) & set(path)
    # where only a prediction is known, the session went on from it
    predicted = Turn(action=TURNS[0].action, predicted=TURNS[0].observation)
    assert step_path("terminal", STATE, [predicted], TURNS[1].action) == path[:2]


def test_the_guard_hides_the_step_its_past_and_its_future_of_every_copy() -> None:
    copy = trajectory_transitions(recording("copy"))
    # another recording that starts where the copy's second step does: same state, other past
    elsewhere = trajectory_transitions(
        recording("elsewhere", TURNS[1:], TURNS[0].observation or "")
    )
    guard = Guard([*copy, *elsewhere])
    second = SimRequest(
        domain="terminal",
        initial_state=STATE,
        history=TURNS[:1],
        action=TURNS[1].action,
        grounding_exclude=("item",),
        own_path=step_path("terminal", STATE, TURNS[:1], TURNS[1].action),
    )
    assert guard.hidden(second) == {0, 1, 2}  # the copy's past, the step itself, its future
    assert guard.hidden(second.model_copy(update={"own_path": ()})) == set()
    assert guard.hidden(second.model_copy(update={"grounding_exclude": ("elsewhere",)})) == {
        0,
        1,
        2,
        3,
        4,
    }


def test_grounding_and_the_record_hide_the_same_transitions() -> None:
    source = FixedTransitions(trajectory_transitions(recording("copy")))
    request = canonical(
        SimRequest(
            domain="terminal",
            initial_state=STATE,
            history=TURNS[:1],
            action=TURNS[1].action,
            own_path=step_path("terminal", STATE, TURNS[:1], TURNS[1].action),
        )
    )
    grounder = Grounder(source, k=4, max_tokens=4000)
    book = RecordBook(source)
    assert grounder.neighbours(request) == [] and book.lookup(request) is None
    # a step that follows no recording (a live session's repeat) is answered by the record
    free = request.model_copy(update={"own_path": ()})
    assert book.lookup(free) is not None and len(grounder.neighbours(free)) == 3
    simulator = Simulator(BaselineEngine("x", lambda r: "guess"), PromptLibrary(), None, book)
    assert [p.answered_by for p in simulator.step_batch([request, free])] == ["model", "record"]
