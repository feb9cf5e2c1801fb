"""Many futures from one state: K samples of one action, or one prediction per candidate action.

Sampling K predictions of the same step shows how sure the model is: K copies of one outcome, or
K different worlds. `spread` sums that up: how many distinct outcomes, how large the most common
one is, how much the samples agree with each other and with the real next state (both by the
domain's headline metric, the one every score of the domain leads with).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from backend.errors import BadInputError
from backend.scoring import headline_metric, score_observation
from backend.types import SimRequest

MAX_SAMPLES = 8
MAX_CANDIDATES = 4

logger = logging.getLogger(__name__)


def sample_requests(request: SimRequest, k: int) -> list[SimRequest]:
    """K copies of a request for one batched call, each with its own seed when one is set.

    With a fixed seed every copy would be the same sample; seed + i keeps the run reproducible
    and the samples different. Without a seed the engine's own randomness differs per copy.

    Raises:
        BadInputError: k outside 1..MAX_SAMPLES.
    """
    if not 1 <= k <= MAX_SAMPLES:
        raise BadInputError(f"Sample between 1 and {MAX_SAMPLES} futures, not {k}.")
    seed = request.params.seed
    if seed is None:
        return [request] * k
    return [
        request.model_copy(update={"params": request.params.model_copy(update={"seed": seed + i})})
        for i in range(k)
    ]


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


def _headline(domain: str, predicted: str, reference: str, previous: str | None) -> float | None:
    metric = headline_metric(domain)
    try:
        results = score_observation(domain, predicted, reference, previous)
    except BadInputError:
        logger.info("a future could not be scored against another", exc_info=True)
        return None
    return next((r.value for r in results if r.name == metric), None)


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def spread(
    domain: str, observations: Sequence[str], reference: str | None, previous: str | None
) -> Spread:
    """Sum up K predicted observations of one step."""
    counts = Counter(text.strip() for text in observations)
    mutual = _mean([_headline(domain, a, b, previous) for a, b in combinations(observations, 2)])
    with_real = None
    if reference is not None:
        with_real = _mean([_headline(domain, text, reference, previous) for text in observations])
    return Spread(
        samples=len(observations),
        distinct=len(counts),
        largest=max(counts.values()) if counts else 0,
        mutual=mutual,
        with_real=with_real,
        metric=headline_metric(domain),
    )
