"""Grounding: real transitions, their retrieval within k and a budget, and the prompt they fill."""

from __future__ import annotations

import json

import pytest

from backend.benchmark.items import load_items
from backend.data.bundled import load_bundled
from backend.domains.prompts import PromptLibrary
from backend.engines.base import EngineConfig, build_engine
from backend.errors import BadInputError, UnknownNameError
from backend.grounding.grounder import HEADER, Grounder, estimate_tokens
from backend.grounding.similarity import METHODS
from backend.grounding.transitions import FixedTransitions, Transition, trajectory_transitions
from backend.simulate import Simulator
from backend.types import (
    HistoryMode,
    PromptContext,
    SamplingParams,
    SimRequest,
    Trajectory,
    Turn,
)


def keys(text: str) -> str:
    return json.dumps([{"keystrokes": text, "duration": 0.1}])


def transition(ref: str, action: str, after: str, trajectory: str | None = "t") -> Transition:
    return Transition(ref, "terminal", "$ ", action, after, trajectory)


LS = transition("a#1", keys("ls -la\n"), "total 0\n$ ", "a")
CAT = transition("b#1", keys("cat notes.txt\n"), "hello\n$ ", "b")
PWD = transition("c#1", keys("pwd\n"), "/home/user\n$ ", "c")


def request(action: str, **changes: object) -> SimRequest:
    return SimRequest(domain="terminal", initial_state="$ ", action=action, **changes)


def simulator(grounder: Grounder | None) -> Simulator:
    return Simulator(build_engine(EngineConfig(name="persistence")), PromptLibrary(), grounder)


def test_only_real_turns_are_transitions() -> None:
    trajectory = Trajectory(
        id="rec",
        domain="terminal",
        initial_state="$ ",
        turns=[
            Turn(action="a1", observation="s1"),
            Turn(action="a2", observation=None, predicted="guess"),
            Turn(action="a3", observation="s3"),
            Turn(action="a4", observation="s4"),
        ],
        source="test",
        licence="MIT",
    )
    found = trajectory_transitions(trajectory)
    # a2 has no real outcome and a3's state before would be the model's guess: neither is real.
    assert [(t.ref, t.before, t.after) for t in found] == [
        ("rec#1", "$ ", "s1"),
        ("rec#4", "s3", "s4"),
    ]
    assert all(t.trajectory_id == "rec" and "guess" not in (t.before, t.after) for t in found)


def test_the_most_similar_real_step_comes_first() -> None:
    grounder = Grounder(FixedTransitions([LS, CAT, PWD]), k=4, max_tokens=10_000)
    found = grounder.neighbours(request(keys("cat notes.txt\n")))
    assert found[0] is CAT
    (grounding,) = grounder.ground([request(keys("cat notes.txt\n"))])
    assert grounding.refs[0] == "b#1" and grounding.demonstrations.startswith(HEADER)
    assert "hello" in grounding.demonstrations


def test_k_and_the_token_budget_bound_the_demonstrations() -> None:
    many = [transition(f"r{i}#1", keys(f"cat file{i}.txt\n"), "x" * 400, f"r{i}") for i in range(6)]
    source = FixedTransitions(many)
    query = [request(keys("cat file1.txt\n"))]
    assert len(Grounder(source, k=2, max_tokens=100_000).ground(query)[0].refs) == 2
    budget = 400
    (grounding,) = Grounder(source, k=6, max_tokens=budget).ground(query)
    assert 1 <= len(grounding.refs) < 6
    assert estimate_tokens(grounding.demonstrations or "") <= budget
    (none,) = Grounder(source, k=6, max_tokens=50).ground(query)
    assert none.demonstrations is None and none.refs == ()


def test_a_request_never_sees_its_own_recording() -> None:
    grounder = Grounder(FixedTransitions([LS, CAT, PWD]), k=4, max_tokens=10_000)
    found = grounder.neighbours(request(keys("cat notes.txt\n"), grounding_exclude=("b",)))
    assert CAT not in found and found


def test_bad_controls_are_refused() -> None:
    with pytest.raises(BadInputError):
        Grounder(FixedTransitions([]), k=0, max_tokens=10)
    with pytest.raises(UnknownNameError):
        Grounder(FixedTransitions([]), k=1, max_tokens=10, method="embeddings")


def test_every_method_ranks_an_identical_action_first() -> None:
    for name in METHODS.names():
        grounder = Grounder(FixedTransitions([LS, CAT, PWD]), 4, 10_000, method=name)
        assert grounder.neighbours(request(keys("pwd\n")))[0] is PWD, name


def test_grounded_steps_carry_demonstrations_and_provenance() -> None:
    grounder = Grounder(FixedTransitions([LS, CAT, PWD]), k=1, max_tokens=10_000)
    prediction = simulator(grounder).step(request(keys("pwd\n")))
    system = prediction.messages[0].content
    # terminal's template has no slot: the demonstrations come as its last section.
    assert "## Demonstrations" in system and "/home/user" in system
    assert prediction.grounded_by == ["c#1"]
    plain = simulator(None).step(request(keys("pwd\n")))
    assert plain.grounded_by == [] and "## Demonstrations" not in plain.messages[0].content
    assert plain.messages[0].content == PromptLibrary().system_prompt("terminal", PromptContext())


def test_a_slot_is_filled_in_place_and_own_demonstrations_are_kept() -> None:
    swe = Transition(
        "s#1", "swe", "", '{"name": "bash", "arguments": {"command": "ls"}}', "README.md", "s"
    )
    grounder = Grounder(FixedTransitions([swe]), k=1, max_tokens=10_000)
    step = SimRequest(domain="swe", action='{"name": "bash", "arguments": {"command": "ls"}}')
    system = simulator(grounder).step(step).messages[0].content
    assert (
        "## Demonstrations\n\n" + HEADER in system
        and "# Observation Format" in system.split(HEADER)[1]
    )
    own = step.model_copy(update={"context": PromptContext(demonstrations="mine")})
    kept = simulator(grounder).step(own)
    assert kept.grounded_by == [] and "mine" in kept.messages[0].content


def test_a_batch_checks_each_domain_index_once() -> None:
    grounder = Grounder(FixedTransitions([LS, CAT, PWD]), k=1, max_tokens=10_000)
    simulator(grounder).step_batch([request(keys("pwd\n"))] * 5)
    simulator(grounder).step_batch([request(keys("ls\n"))] * 5)
    assert grounder.builds == 1


def test_bundled_items_never_retrieve_their_own_recording() -> None:
    source = FixedTransitions([t for r in load_bundled() for t in trajectory_transitions(r)])
    grounder = Grounder(source, k=8, max_tokens=100_000)
    requests = [
        item.request(SamplingParams(), HistoryMode.TEACHER_FORCED) for item in load_items("bundled")
    ]
    grounded = 0
    for item_request, grounding in zip(requests, grounder.ground(requests), strict=True):
        (own,) = item_request.grounding_exclude
        assert not any(ref.startswith(f"{own}#") for ref in grounding.refs)
        grounded += bool(grounding.refs)
    assert grounded > 100
