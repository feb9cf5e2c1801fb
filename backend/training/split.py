"""The train/held-out split: by trajectory (never by turn), per domain, fixed by a seed, stored.

Splitting turns would put the first turns of a trajectory in training and its later turns in
the evaluation, where their history is the very text the model was trained on. Each domain
holds out its own share, so the per-domain table has a row for every domain with two or more
trajectories.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel

SPLIT_FILE = "split.json"


class Split(BaseModel):
    """Which groups (trajectories or sessions) train and which are held out."""

    seed: int
    eval_split: float
    train: list[str]
    heldout: list[str]


def split_groups(pairs: Iterable[tuple[str, str]], fraction: float, seed: int) -> Split:
    """Hold out `fraction` of each domain's groups (at least one where a domain has two).

    Args:
        pairs: (domain, group) of every example; repeats are fine.
        fraction: share held out, 0 for none.
        seed: fixes the draw.
    """
    by_domain: dict[str, set[str]] = defaultdict(set)
    for domain, group in pairs:
        by_domain[domain].add(group)
    rng = random.Random(seed)
    heldout: list[str] = []
    train: list[str] = []
    for domain in sorted(by_domain):
        groups = sorted(by_domain[domain])
        rng.shuffle(groups)
        count = round(len(groups) * fraction)
        if fraction > 0 and len(groups) >= 2:
            count = min(max(count, 1), len(groups) - 1)
        heldout.extend(groups[:count])
        train.extend(groups[count:])
    return Split(seed=seed, eval_split=fraction, train=sorted(train), heldout=sorted(heldout))


def load_or_make(out: Path, pairs: Iterable[tuple[str, str]], fraction: float, seed: int) -> Split:
    """The split stored in `out` (a resumed run keeps its split), else a new one, stored."""
    path = out / SPLIT_FILE
    if path.exists():
        return Split.model_validate_json(path.read_text(encoding="utf-8"))
    split = split_groups(pairs, fraction, seed)
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(split.model_dump(), indent=2), encoding="utf-8")
    return split
