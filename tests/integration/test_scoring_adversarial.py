"""No headline and no reward pays junk more than persistence, on every bundled step.

For every real step of the bundled set, six outputs a model could learn instead of simulating
(backend.scoring.adversaries: empty, prose, the previous observation, half of it, a garbled copy,
a 200-fold copy) are scored by the domain's headline metric and by every reward built on it:
`combine_reward`, the GRPO `world_model_reward` (through `score_completion`) and the rollouts'
`reference` reward model. None may score above persistence (the previous observation unchanged)
on the same step. No epsilon: the metrics charge wrong content against right content, so junk
reaches exactly 0 where persistence does. The one exception is an adversary that IS the real
observation (an empty output where the real one is empty): it is the oracle, not junk.

Version 1 of the headlines failed this on 6 of 7 domains (an empty desktop tree scored 0.89).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from backend.benchmark.items import BenchItem, load_items
from backend.envs.sim.rewards import ReferenceReward, StepView
from backend.export.rewards import world_model_reward
from backend.scoring import headline_metric, score_observation
from backend.scoring.adversaries import ADVERSARIES, near_miss
from backend.scoring.reward import combine_reward
from backend.scoring.text import normalise_whitespace
from backend.stepping import compare

TREE_DOMAINS = ("web", "os", "android")
UNPARSABLE = "{ the window closed"
"""JSON that breaks off: every tree kind reads `{` as JSON, and no JSON parser accepts it."""
BROKEN_MARKUP = "<node text='unclosed'"
"""Markup that breaks off: the XML parsers refuse it, the HTML parser reads a lone node."""


@dataclass
class Step:
    """One bundled step's outputs and what each scored, by output name."""

    item: BenchItem
    outputs: dict[str, str]
    scores: dict[str, dict[str, float]] = field(default_factory=dict)


def _score_all(item: BenchItem, outputs: dict[str, str]) -> dict[str, dict[str, float]]:
    """Every output's headline and rewards, by output name then signal name."""
    names = list(outputs)
    grpo = world_model_reward(
        prompts=[""] * len(names),
        completions=[outputs[name] for name in names],
        reference=[item.reference] * len(names),
        domain=[item.domain] * len(names),
        previous=[item.previous] * len(names),
    )
    headline = headline_metric(item.domain)
    scores = {}
    for name, reward in zip(names, grpo, strict=True):
        results = compare(item.domain, outputs[name], item.reference, item.previous).results
        (verdict,) = ReferenceReward().assess(
            [StepView(domain=item.domain, task="", turns=(), scores=results)]
        )
        scores[name] = {
            "headline": next(r.value for r in results if r.name == headline),
            "combine_reward": combine_reward(item.domain, list(results)).value,
            "world_model_reward": reward,
            "reference_reward": verdict.reward,
        }
    return scores


@pytest.fixture(scope="module")
def steps() -> list[Step]:
    """The bundled steps with every adversary, persistence and the oracle scored (seeded)."""
    out = []
    for index, item in enumerate(load_items("bundled")):
        rng = random.Random(index)
        previous = item.previous or ""
        outputs = {name: make(previous, rng) for name, make in ADVERSARIES.items()}
        outputs |= {"persistence": previous, "oracle": item.reference}
        outputs["near_miss"] = near_miss(item.reference)
        out.append(Step(item, outputs, _score_all(item, outputs)))
    return out


def test_every_domain_is_covered(steps: list[Step]) -> None:
    assert {s.item.domain for s in steps} == {
        "terminal",
        "swe",
        "mcp",
        "search",
        "web",
        "os",
        "android",
    }


def test_no_adversary_scores_above_persistence(steps: list[Step]) -> None:
    beaten = []
    for index, step in enumerate(steps):
        floor = step.scores["persistence"]
        reference = normalise_whitespace(step.item.reference)
        for name in ADVERSARIES:
            if normalise_whitespace(step.outputs[name]) == reference:
                continue
            for signal, value in step.scores[name].items():
                if value > floor[signal]:
                    beaten.append(
                        f"{step.item.domain} step {index} {name} {signal}: "
                        f"{value:.3f} > persistence {floor[signal]:.3f}"
                    )
    assert not beaten, "\n".join(beaten)


def test_oracle_scores_one_on_every_signal(steps: list[Step]) -> None:
    assert all(value == 1.0 for s in steps for value in s.scores["oracle"].values())


def test_a_near_miss_keeps_a_clearly_positive_headline(steps: list[Step]) -> None:
    """The floor and the charge for wrong content must not turn the headline into exact match."""
    for domain in {s.item.domain for s in steps}:
        values = [s.scores["near_miss"]["headline"] for s in steps if s.item.domain == domain]
        assert sum(values) / len(values) > 0.3, domain


@pytest.mark.parametrize("domain", TREE_DOMAINS)
def test_unparsable_or_empty_tree_scores_zero(steps: list[Step], domain: str) -> None:
    for step in (s for s in steps if s.item.domain == domain):
        item = step.item
        assert step.scores["empty"]["headline"] == 0.0, item.item_id
        unparsable, markup = (
            next(
                r
                for r in score_observation(domain, text, item.reference, item.previous)
                if r.name == headline_metric(domain)
            )
            for text in (UNPARSABLE, BROKEN_MARKUP)
        )
        assert unparsable.value == 0.0 and unparsable.details["unparsable"], item.item_id
        assert markup.value == 0.0, item.item_id
