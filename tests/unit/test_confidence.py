"""Confidence: from log-probabilities, from the agreement of samples, and its AUROC."""

from __future__ import annotations

import json
import math

import pytest

from backend.confidence import agreement, auroc, from_logprobs
from backend.domains.prompts import PromptLibrary
from backend.engines.baselines import BaselineEngine
from backend.simulate import Simulator
from backend.stepping import step_batch
from backend.types import SamplingParams, SimRequest


def test_log_probabilities_give_the_geometric_mean_probability() -> None:
    assert from_logprobs([]) is None
    assert from_logprobs([math.log(0.5), math.log(0.5)]) == pytest.approx(0.5)
    assert from_logprobs([0.0, math.log(0.25)]) == pytest.approx(0.5)


def test_agreement_is_the_mean_similarity_to_the_other_samples() -> None:
    same = lambda a, b: float(a == b)  # noqa: E731
    assert agreement(["a", "a", "b"], same) == [0.5, 0.5, 0.0]
    assert agreement(["a"], same) == [1.0]


def test_auroc_counts_ranked_pairs_and_ties_half() -> None:
    assert auroc([0.9, 0.8, 0.1], [True, True, False]) == 1.0
    assert auroc([0.1, 0.9], [True, False]) == 0.0
    assert auroc([0.5, 0.5], [True, False]) == 0.5
    assert auroc([0.5, 0.7], [True, True]) is None


def test_k_samples_without_logprobs_get_their_agreement() -> None:
    answers = iter(["a.txt\n$ ", "a.txt\n$ ", "zzz"])
    engine = BaselineEngine("cycling", lambda request: next(answers))
    request = SimRequest(
        domain="terminal",
        initial_state="$ ",
        action=json.dumps([{"keystrokes": "ls\n", "duration": 0.1}]),
        params=SamplingParams(seed=1),
    )
    (samples,) = step_batch(Simulator(engine, PromptLibrary()), [request], samples=3)
    confidences = [s.made().confidence for s in samples]
    assert confidences[0] == confidences[1] and confidences[0] > confidences[2]
    single = step_batch(Simulator(BaselineEngine("one", lambda r: "x"), PromptLibrary()), [request])
    assert single[0][0].made().confidence is None


def test_bench_results_report_the_confidence_auroc_per_domain() -> None:
    from backend.benchmark.results import domain_stats
    from backend.benchmark.store import ItemRow
    from backend.scoring import MetricResult, headline_metric
    from backend.scoring.base import METRICS

    name = headline_metric("terminal")
    version = METRICS.get(name).version

    def row(i: int, value: float, confidence: float | None) -> ItemRow:
        metric = MetricResult(name=name, version=version, value=value)
        return ItemRow(
            engine="e",
            model="m",
            item_id=f"i{i}",
            domain="terminal",
            status="ok",
            metrics=[metric],
            confidence=confidence,
        )

    rows = [row(0, 0.9, 0.8), row(1, 0.1, 0.3), row(2, 0.7, 0.2), row(3, 0.0, None)]
    assert domain_stats("terminal", rows).confidence_auroc == 0.5
    assert domain_stats("terminal", rows[:2]).confidence_auroc == 1.0
    assert domain_stats("terminal", [row(0, 0.9, None)]).confidence_auroc is None
