"""Agreement on 1-5 ratings: quadratic-weighted Cohen's kappa, Spearman, Krippendorff's alpha.

Thin wrappers over scikit-learn (`cohen_kappa_score`), scipy (`spearmanr`) and `krippendorff`
that take what SQL hands over: counts of (first rating, second rating) pairs, and counts of each
rating per item. Aggregating in SQL first keeps 100,000 ratings a few thousand numbers here.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import krippendorff
import numpy as np
from numpy.typing import ArrayLike
from scipy.stats import ConstantInputWarning, spearmanr
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score

SCALE = (1, 2, 3, 4, 5)
"""The rubric's ratings (annotators' and the judge's alike)."""


@dataclass(frozen=True)
class PairAgreement:
    """How two raters' ratings of the same items agree (pooled over pairs of raters).

    Attributes:
        pairs: rated pairs compared.
        kappa: quadratic-weighted Cohen's kappa (1 perfect, 0 chance, < 0 worse than chance);
            None without two different ratings to compare.
        spearman: Spearman's rank correlation; None when either side never varies.
        exact: share of pairs with the same rating.
    """

    pairs: int
    kappa: float | None
    spearman: float | None
    exact: float | None


def _finite(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def pair_agreement(first: ArrayLike, second: ArrayLike, counts: ArrayLike) -> PairAgreement:
    """Agreement of rating pairs given as (first, second, how many times) columns."""
    x = np.asarray(first, dtype=int)
    y = np.asarray(second, dtype=int)
    n = np.asarray(counts, dtype=int)
    total = int(n.sum())
    if total == 0:
        return PairAgreement(0, None, None, None)
    exact = float(n[x == y].sum() / total)
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", (ConstantInputWarning, RuntimeWarning, UndefinedMetricWarning)
        )
        kappa = cohen_kappa_score(x, y, labels=list(SCALE), weights="quadratic", sample_weight=n)
        rho = spearmanr(np.repeat(x, n), np.repeat(y, n)).statistic if total > 1 else math.nan
    return PairAgreement(total, _finite(kappa), _finite(rho), exact)


def people_agreement(value_counts: ArrayLike) -> PairAgreement:
    """Agreement of every pair of people who rated the same item, from per-item rating counts.

    An item rated v by c_v people holds c_v * c_w pairs (v, w) for v != w and c_v (c_v - 1) / 2
    pairs (v, v). People are interchangeable, so each pair counts in both orders: the table is
    symmetric (Cohen's kappa on it is Scott's pi / Fleiss' kappa for two raters) and doubling
    every pair changes neither kappa, Spearman nor the exact share, only the pair count.
    """
    counts = np.asarray(value_counts, dtype=np.int64).reshape(-1, len(SCALE))
    both_orders = counts.T @ counts - np.diag(counts.sum(axis=0))
    first, second = np.meshgrid(SCALE, SCALE, indexing="ij")
    doubled = pair_agreement(first.ravel(), second.ravel(), both_orders.ravel())
    return PairAgreement(doubled.pairs // 2, doubled.kappa, doubled.spearman, doubled.exact)


def alpha(value_counts: ArrayLike) -> float | None:
    """Krippendorff's alpha (ordinal) for any number of raters.

    Args:
        value_counts: one row per item, one column per rating in `SCALE`: how many raters gave
            the item that rating. Items rated once carry no information and are left out.

    Returns:
        Alpha (1 perfect, 0 chance), or None with fewer than two items rated twice or no
        variation at all.
    """
    counts = np.asarray(value_counts, dtype=float).reshape(-1, len(SCALE))
    counts = counts[counts.sum(axis=1) >= 2]
    if len(counts) < 2 or np.count_nonzero(counts.sum(axis=0)) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        value = krippendorff.alpha(
            value_counts=counts, value_domain=list(SCALE), level_of_measurement="ordinal"
        )
    return _finite(value)
