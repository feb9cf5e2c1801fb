"""Bradley-Terry ratings of arena contenders with bootstrap intervals, as Chatbot Arena has them.

Votes are counted per (contender A, contender B, outcome) in SQL; the fit works on the matrix of
those counts (`choix.ilsr_pairwise_dense`, Iterative Luce Spectral Ranking, the maximum-likelihood
Bradley-Terry fit), so it costs the same for ten votes or a million. A tie, and "both bad",
count half a win for each side, as in Chatbot Arena. Ratings are on the Elo scale (400 points =
10:1 odds) around a mean of 1000. Intervals come from resampling the votes with replacement (a
multinomial draw of the counts, the same distribution as resampling vote rows) and refitting.

Unlike Chatbot Arena (millions of votes), a small study has contenders that won or lost every
vote, whose maximum-likelihood rating is infinite; choix's `alpha` (`PRIOR`: a small rate every
pairing starts with, like a fraction of a virtual game) keeps them finite: 5-0 is then +311
points, and 300-100 is 189.7 instead of 190.8. With thousands of votes its effect vanishes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import choix
import numpy as np
from numpy.typing import NDArray

SCALE = 400.0 / math.log(10.0)
"""Elo points per unit of Bradley-Terry strength (natural-log odds)."""
MEAN_RATING = 1000.0
PRIOR = 0.5
DEFAULT_ROUNDS = 100


@dataclass(frozen=True)
class Battle:
    """Vote counts of one ordered pairing: A's wins, B's wins, and ties (both bad included)."""

    a: str
    b: str
    wins_a: int
    wins_b: int
    ties: int

    @property
    def votes(self) -> int:
        """All votes on the pairing."""
        return self.wins_a + self.wins_b + self.ties


@dataclass(frozen=True)
class Rating:
    """One contender's standing.

    Attributes:
        contender: its label.
        rating: Bradley-Terry rating on the Elo scale.
        low: lower bound of the bootstrap 95% interval.
        high: upper bound.
        votes: votes it took part in.
        wins: votes it won outright.
        rank: 1 + the number of contenders whose interval lies entirely above its own (the
            Chatbot Arena rank: contenders that cannot be told apart share a rank).
    """

    contender: str
    rating: float
    low: float
    high: float
    votes: int
    wins: int
    rank: int


def _cells(battles: Sequence[Battle], names: list[str]) -> tuple[NDArray[np.int_], NDArray]:
    """Every (winner, loser) cell of the win matrix and its count in half votes."""
    index = {name: i for i, name in enumerate(names)}
    cells, halves = [], []
    for b in battles:
        i, j = index[b.a], index[b.b]
        cells += [(i, j), (j, i)]
        halves += [2 * b.wins_a + b.ties, 2 * b.wins_b + b.ties]
    return np.array(cells), np.array(halves, dtype=float)


def _fit(size: int, cells: NDArray[np.int_], halves: NDArray, prior: float) -> NDArray:
    """Ratings from half-vote counts per cell, centred on MEAN_RATING."""
    wins = np.zeros((size, size))
    np.add.at(wins, (cells[:, 0], cells[:, 1]), halves / 2)
    strengths = choix.ilsr_pairwise_dense(wins, alpha=prior)
    return SCALE * (strengths - strengths.mean()) + MEAN_RATING


def ratings(
    battles: Sequence[Battle], rounds: int = DEFAULT_ROUNDS, prior: float = PRIOR, seed: int = 0
) -> list[Rating]:
    """Bradley-Terry ratings with bootstrap 95% intervals, best first.

    Args:
        battles: vote counts per pairing (both orders may appear; they add up).
        rounds: bootstrap resamples (0: no interval, the bounds equal the rating).
        prior: choix's `alpha`; 0 gives the plain maximum-likelihood fit, which fails when a
            contender never lost.
        seed: seeds the resampling, so a report is reproducible.
    """
    battles = [b for b in battles if b.votes > 0 and b.a != b.b]
    if not battles:
        return []
    names = sorted({b.a for b in battles} | {b.b for b in battles})
    cells, halves = _cells(battles, names)
    point = _fit(len(names), cells, halves, prior)
    low = high = point
    if rounds > 0:
        rng = np.random.default_rng(seed)
        total = int(halves.sum())
        draws = rng.multinomial(total, halves / total, size=rounds)
        samples = np.array([_fit(len(names), cells, draw, prior) for draw in draws])
        low, high = np.percentile(samples, [2.5, 97.5], axis=0)
    votes = dict.fromkeys(names, 0)
    wins = dict.fromkeys(names, 0)
    for b in battles:
        votes[b.a] += b.votes
        votes[b.b] += b.votes
        wins[b.a] += b.wins_a
        wins[b.b] += b.wins_b
    order = sorted(range(len(names)), key=lambda i: -point[i])
    return [
        Rating(
            contender=names[i],
            rating=float(point[i]),
            low=float(low[i]),
            high=float(high[i]),
            votes=votes[names[i]],
            wins=wins[names[i]],
            rank=1 + int(np.sum(low > high[i])),
        )
        for i in order
    ]
