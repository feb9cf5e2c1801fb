"""The GRPO reward function: 1.0 for the reference itself, less for a perturbed observation."""

from __future__ import annotations

import pytest

from backend.export.prompt import answer
from backend.export.rewards import completion_text, world_model_reward

CASES = {
    "terminal": ("$ ls\na.txt  b.txt\n$ ", "$ ls\na.txt\n$ "),
    "web": (
        "[1] RootWebArea 'Shop'\n\t[2] button 'Add to cart'\n\t[3] StaticText 'Cart: 1 item'",
        "[1] RootWebArea 'Shop'\n\t[2] button 'Add to cart'\n\t[3] StaticText 'Cart: 0 items'",
    ),
    "mcp": ('{"files": ["a.txt", "b.txt"], "count": 2}', '{"files": ["a.txt"], "count": 1}'),
}


@pytest.mark.parametrize("domain", list(CASES))
def test_reference_scores_one_and_perturbed_less(domain: str) -> None:
    reference, perturbed = CASES[domain]
    completions = [
        reference,
        answer(domain, reference)[0].content,
        [
            {
                "role": "assistant",
                "content": f"<think>easy</think>{answer(domain, reference)[0].content}",
            }
        ],
        perturbed,
        "",
    ]
    rewards = world_model_reward(
        prompts=["p"] * len(completions),
        completions=completions,
        reference=[reference] * len(completions),
        domain=[domain] * len(completions),
        previous=[None] * len(completions),
        trainer_state=object(),  # TRL passes extra keywords; they must be ignored
    )
    assert rewards[:3] == [1.0, 1.0, 1.0]
    assert 0.0 <= rewards[3] < 1.0 and rewards[4] < rewards[3]


def test_change_from_previous_state_counts() -> None:
    previous, reference = CASES["web"][1], CASES["web"][0]
    stale, right = world_model_reward(
        ["p", "p"],
        [previous, reference],
        reference=[reference] * 2,
        domain=["web"] * 2,
        previous=[previous] * 2,
    )
    assert right == 1.0 and stale < 1.0


def test_unscorable_reference_gives_zero() -> None:
    assert world_model_reward(["p"], ["{}"], reference=["not json"], domain=["mcp"]) == [0.0]


def test_completion_text() -> None:
    assert completion_text("x") == "x"
    assert completion_text([{"role": "assistant", "content": "y"}]) == "y"
    assert completion_text([]) == ""
