"""The indistinguishability rate of "Which one is real?" votes, with its Wilson interval.

A person sees the real next observation and a model's prediction in random order and picks the
real one, or says they cannot tell. The rate is the share of votes the prediction "won": picked
as real, plus half of the can't-tell votes (a coin flip between two candidates the person could
not separate). 50% means people cannot tell the model from reality; 0% means they always spot
it; above 50% the prediction looks more real than reality.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import norm

CONFIDENCE = 0.95


def wilson_interval(
    successes: ArrayLike, trials: ArrayLike, confidence: float = CONFIDENCE
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Wilson score intervals of binomial proportions, vectorised over groups.

    The same interval as `scipy.stats.binomtest(k, n).proportion_ci(method="wilson")` (the
    tests check it), computed for whole arrays at once and for fractional successes: a
    can't-tell vote counts half. Groups without trials get NaN bounds.
    """
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    z = float(norm.ppf(0.5 + confidence / 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        denominator = 1 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denominator
        half = z / denominator * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


@dataclass(frozen=True)
class Rate:
    """The indistinguishability of one model (in one domain) from reality.

    Attributes:
        votes: how many votes.
        fooled: votes that took the prediction for the real observation.
        cannot_tell: votes that could not tell.
        spotted: votes that picked the real observation.
        rate: (fooled + cannot_tell / 2) / votes; None without votes.
        low: lower bound of its 95% Wilson interval.
        high: upper bound.
    """

    votes: int
    fooled: int
    cannot_tell: int
    spotted: int
    rate: float | None
    low: float | None
    high: float | None


def indistinguishability(
    fooled: ArrayLike, cannot_tell: ArrayLike, spotted: ArrayLike
) -> list[Rate]:
    """Rates and 95% intervals for many groups at once (one element per group)."""
    f = np.asarray(fooled, dtype=int)
    c = np.asarray(cannot_tell, dtype=int)
    s = np.asarray(spotted, dtype=int)
    n = f + c + s
    wins = f + c / 2
    low, high = wilson_interval(wins, n)
    rates = []
    for i in range(len(n)):
        known = n[i] > 0
        rates.append(
            Rate(
                votes=int(n[i]),
                fooled=int(f[i]),
                cannot_tell=int(c[i]),
                spotted=int(s[i]),
                rate=float(wins[i] / n[i]) if known else None,
                low=float(low[i]) if known else None,
                high=float(high[i]) if known else None,
            )
        )
    return rates
