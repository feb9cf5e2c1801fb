"""Bootstrap 95% intervals of benchmark means: per domain, and both Overall averages.

Percentile bootstrap with fixed seeds, so the same rows always give the same interval. Each
domain draws from its own stream (seeded by the fixed seed and the domain's name), so its
interval does not depend on which other domains were run. The macro interval averages the
domain means of each resample (stratified: every domain keeps its size), which is how the macro
Overall itself is formed; the micro interval resamples the pooled items.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence

import numpy as np
from pydantic import BaseModel

RESAMPLES = 2_000
SEED = 0
CONFIDENCE = 0.95


class BootstrapSettings(BaseModel):
    """How the intervals were computed (stored with them)."""

    method: str = "percentile bootstrap"
    resamples: int = RESAMPLES
    seed: int = SEED
    confidence: float = CONFIDENCE


Interval = tuple[float, float]


def _bounds(means: np.ndarray) -> Interval:
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


def _resampled_means(stream: str, values: Sequence[float]) -> np.ndarray:
    rng = np.random.default_rng([SEED, zlib.crc32(stream.encode("utf-8"))])
    data = np.asarray(values, dtype=float)
    picks = rng.integers(0, len(data), size=(RESAMPLES, len(data)))
    return data[picks].mean(axis=1)


def domain_intervals(
    values: Mapping[str, Sequence[float]],
) -> tuple[dict[str, Interval], Interval | None, Interval | None]:
    """Intervals of each domain's mean, of the macro and of the micro average.

    Args:
        values: per domain, the per-item values in a stable order (the interval depends on it
            only through the fixed seed's draws).

    Returns:
        (interval per domain with values, macro interval, micro interval); None where there are
        no values.
    """
    present = {domain: vals for domain, vals in sorted(values.items()) if len(vals)}
    if not present:
        return {}, None, None
    means = {domain: _resampled_means(domain, vals) for domain, vals in present.items()}
    macro = np.mean(np.stack(list(means.values())), axis=0)
    pooled = [value for vals in present.values() for value in vals]
    micro = _resampled_means("micro: all items pooled", pooled)
    return {d: _bounds(m) for d, m in means.items()}, _bounds(macro), _bounds(micro)
