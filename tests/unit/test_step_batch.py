"""The batched step path: N requests x K samples in one engine call, each scored once.

The engine is a real `BaselineEngine` whose prediction says which request it answered; it counts
its `generate` calls, which is what batching is about.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from backend.domains.prompts import PromptLibrary
from backend.engines.baselines import BaselineEngine
from backend.errors import BadActionError, BadInputError
from backend.scoring import headline_metric
from backend.simulate import Simulator
from backend.stepping import MAX_SAMPLES, Scores, compare, step_batch
from backend.types import ChatRequest, Completion, SamplingParams, SimRequest

SCREEN = "$ ls\nnotes.txt\n$ "


class CountingEngine(BaselineEngine):
    """Answers every request with its reference (or a blank screen) and counts its calls."""

    def __init__(self) -> None:
        super().__init__("counting", lambda request: request.reference or "$ ")
        self.calls: list[int] = []

    def generate(self, requests: Sequence[ChatRequest]) -> list[Completion]:
        self.calls.append(len(requests))
        return super().generate(requests)


def request(action: str, reference: str | None = SCREEN, seed: int | None = 3) -> SimRequest:
    return SimRequest(
        domain="terminal",
        initial_state="$ ",
        action=action,
        reference=reference,
        params=SamplingParams(seed=seed),
    )


def keystrokes(text: str) -> str:
    return f'[{{"keystrokes": "{text}\\n", "duration": 0.1}}]'


def test_n_requests_times_k_samples_are_one_engine_call() -> None:
    engine = CountingEngine()
    simulator = Simulator(engine, PromptLibrary())
    requests = [request(keystrokes("ls")), request(keystrokes("pwd"), reference=None)]
    batched = step_batch(simulator, requests, samples=3)
    assert engine.calls == [6]
    assert [len(samples) for samples in batched] == [3, 3]
    assert [s.request.params.seed for s in batched[0]] == [3, 4, 5]
    # Scored once, by the one policy: known truth gets the domain's metrics, headline first.
    first = batched[0][0]
    assert first.scores == compare("terminal", first.made().observation, SCREEN, "$ ")
    assert first.scores.headline == 1.0
    assert first.scores.results[0].name == headline_metric("terminal")
    assert batched[1][0].scores == Scores("terminal")  # no truth, no scores


def test_a_bad_request_costs_only_its_own_samples() -> None:
    engine = CountingEngine()
    simulator = Simulator(engine, PromptLibrary())
    requests = [request(keystrokes("ls")), request("not json"), request(keystrokes("pwd"))]
    batched = step_batch(simulator, requests, samples=2)
    # The batch fails on the bad action before reaching the engine; the rest are retried.
    assert engine.calls == [1, 1, 1, 1]
    bad = batched[1]
    assert all(isinstance(s.error, BadActionError) and s.prediction is None for s in bad)
    with pytest.raises(BadActionError):
        bad[0].made()
    assert all(s.prediction is not None for s in (*batched[0], *batched[2]))


def test_samples_are_bounded() -> None:
    simulator = Simulator(CountingEngine(), PromptLibrary())
    with pytest.raises(BadInputError):
        step_batch(simulator, [request(keystrokes("ls"))], samples=MAX_SAMPLES + 1)


def test_an_unreadable_truth_leaves_the_prediction_unscored_with_the_reason() -> None:
    scores = compare("os", "<window/>", "<not a tree", None)
    assert scores.results == [] and scores.headline is None
    assert scores.problem.startswith("scoring: ")
