"""The model's confidence in a prediction, and how well it predicts which predictions are good.

Two sources, in order of preference:
- token log-probabilities, where the engine returns them (an OpenAI-compatible server's
  `logprobs`, the transformers engine's own logits): the geometric mean probability of the
  sampled tokens, `exp(mean log p)`, in [0, 1] and independent of the completion's length;
- otherwise, with K samples of one step, their agreement: each sample's mean similarity (the
  domain's headline metric) to the other K - 1.

`auroc` measures a confidence as a detector of good predictions (people's accept over reject,
or headline >= 0.5): 1 ranks every good prediction above every bad one, 0.5 is chance.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

GOOD_HEADLINE = 0.5
"""A prediction whose headline metric reaches this counts as good for the AUROC."""


def from_logprobs(logprobs: Sequence[float]) -> float | None:
    """The geometric mean probability of the sampled tokens (None without any token)."""
    if not logprobs:
        return None
    return math.exp(sum(logprobs) / len(logprobs))


def agreement(observations: Sequence[str], similarity: Callable[[str, str], float]) -> list[float]:
    """Each sample's mean similarity to the others (a single sample agrees with nothing: 1)."""
    if len(observations) < 2:
        return [1.0] * len(observations)
    return [
        sum(similarity(mine, other) for j, other in enumerate(observations) if j != i)
        / (len(observations) - 1)
        for i, mine in enumerate(observations)
    ]


def auroc(confidences: Sequence[float], good: Sequence[bool]) -> float | None:
    """Area under the ROC curve of `confidences` separating good from bad (ties count half).

    None when either class is empty: nothing to separate.
    """
    positives = [c for c, label in zip(confidences, good, strict=True) if label]
    negatives = [c for c, label in zip(confidences, good, strict=True) if not label]
    if not positives or not negatives:
        return None
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))
