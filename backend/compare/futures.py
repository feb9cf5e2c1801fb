"""Many futures from one state: K samples of one action, or one prediction per candidate action.

Sampling K predictions of the same step (`backend.stepping.step_batch` with `samples=K`) shows
how sure the model is: K copies of one outcome, or K different worlds. `spread` sums that up:
how many distinct outcomes, how large the most common one is, how much the samples agree with
each other and with the real next state (both by the domain's headline metric, the one every
score of the domain leads with). Each sample is scored against the truth once, by the step path.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from backend.scoring import headline_metric
from backend.stepping import Sample, compare

MAX_CANDIDATES = 4


@dataclass(frozen=True)
class Spread:
    """How K predicted futures of one step spread.

    Attributes:
        samples: K.
        distinct: how many different outcomes (ignoring surrounding whitespace).
        largest: how many samples share the most common outcome.
        mutual: mean headline agreement over pairs of samples; None when it cannot be scored.
        with_real: mean headline score of the samples against the real state; None when unknown.
        metric: the headline metric used.
    """

    samples: int
    distinct: int
    largest: int
    mutual: float | None
    with_real: float | None
    metric: str


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def spread(domain: str, samples: Sequence[Sample], previous: str | None) -> Spread:
    """Sum up K scored predictions of one step (their scores against the truth are reused)."""
    observations = [sample.made().observation for sample in samples]
    counts = Counter(text.strip() for text in observations)
    mutual = _mean(
        [compare(domain, a, b, previous).headline for a, b in combinations(observations, 2)]
    )
    known = [sample for sample in samples if sample.request.reference is not None]
    return Spread(
        samples=len(observations),
        distinct=len(counts),
        largest=max(counts.values()) if counts else 0,
        mutual=mutual,
        with_real=_mean([sample.scores.headline for sample in known]) if known else None,
        metric=headline_metric(domain),
    )
