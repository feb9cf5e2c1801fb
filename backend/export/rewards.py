"""A reward function with TRL's GRPO signature, for training on `reward` exports.

    from backend.export.rewards import world_model_reward
    GRPOTrainer(model=..., reward_funcs=world_model_reward,
                train_dataset=load_dataset("json", data_files="reward.jsonl")["train"])

TRL calls it with the generated completions and every dataset column as a keyword list; it
parses each completion with the official output rules and scores it against the row's
`reference` with the domain's deterministic metrics, combined by the versioned reward formula
(without judge or human components, which do not exist for fresh completions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from backend.errors import AWPError
from backend.parsing import parse_output
from backend.scoring.reward import combine_reward
from backend.stepping import compare


def completion_text(completion: Any) -> str:
    """The text of a completion: a string, or the last message of a conversational one."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion:
        last = completion[-1]
        if isinstance(last, Mapping):
            return str(last.get("content", ""))
    return ""


def score_completion(domain: str, text: str, reference: str, previous: str | None = None) -> float:
    """The reward in [0, 1] for one completion text; 0 when it cannot be scored."""
    scores = compare(domain, parse_output(text).observation, reference, previous)
    if scores.problem:
        return 0.0
    try:
        return combine_reward(domain, scores.results).value
    except AWPError:
        return 0.0


def world_model_reward(
    prompts: Sequence[Any], completions: Sequence[Any], **columns: Any
) -> list[float]:
    """Score each completion against its row's reference observation.

    Args:
        prompts: the prompts (unused: the reference already fixes what is right).
        completions: generated completions, as strings or chat messages.
        **columns: dataset columns as lists; needs `reference` and `domain`, uses `previous`
            when present (tree domains score the change from it).

    Returns:
        One reward in [0, 1] per completion.

    """
    references = columns["reference"]
    domains = columns["domain"]
    previous = columns.get("previous") or [None] * len(completions)
    return [
        score_completion(domain, completion_text(completion), reference, before)
        for completion, reference, domain, before in zip(
            completions, references, domains, previous, strict=True
        )
    ]
