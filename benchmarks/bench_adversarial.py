"""Junk outputs against persistence on the bundled set: the README's adversarial table.

Scores, on every bundled step, the domain's headline metric of the outputs in
`backend.scoring.adversaries` (empty, prose, the previous observation, its first half, a garbled
copy, a 200-fold copy; seeded per step), of persistence (the previous observation, which is the
`previous` adversary), of the oracle (the real observation) and of a near-miss (the real
observation with one value changed). Prints, per domain, the mean of each x100 and how many
steps any junk output scores above persistence on (an output identical to the real observation,
such as an empty output where the real one is empty, is the oracle and is not counted). The
rewards (`combine_reward`, `world_model_reward`, the rollouts' `reference` reward) are the
headline when only metrics are present, so the table is theirs too; the adversarial test checks
each of them separately.

Usage: PYTHONPATH=. python benchmarks/bench_adversarial.py [--results]
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict
from statistics import fmean
from typing import Any

from backend.benchmark.items import load_items
from backend.scoring import headline_metric, score_observation
from backend.scoring.adversaries import ADVERSARIES, near_miss
from backend.scoring.text import normalise_whitespace
from benchmarks.results import ResultsRun, Table, show

JUNK = [name for name in ADVERSARIES if name != "previous"]
COLUMNS = ["persistence", "oracle", "near-miss", *JUNK]


def measure() -> tuple[dict[str, dict[str, list[float]]], dict[str, int]]:
    """Headline values per domain and output, and per domain the steps some junk beat."""
    values: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    beaten: dict[str, int] = defaultdict(int)
    for index, item in enumerate(load_items("bundled")):
        rng = random.Random(index)
        previous = item.previous or ""
        outputs = {name: make(previous, rng) for name, make in ADVERSARIES.items()}
        outputs |= {"oracle": item.reference, "near-miss": near_miss(item.reference)}
        outputs["persistence"] = outputs.pop("previous")
        headline = headline_metric(item.domain)
        scored = {
            name: next(
                r.value
                for r in score_observation(item.domain, text, item.reference, item.previous)
                if r.name == headline
            )
            for name, text in outputs.items()
        }
        for name, value in scored.items():
            values[item.domain][name].append(value)
        reference = normalise_whitespace(item.reference)
        beaten[item.domain] += any(
            scored[name] > scored["persistence"]
            and normalise_whitespace(outputs[name]) != reference
            for name in JUNK
        )
    return values, beaten


def table(values: dict[str, dict[str, list[float]]], beaten: dict[str, int]) -> Table:
    """One row per domain, mean headline x100 per output."""
    rows: list[list[Any]] = []
    for domain in sorted(values):
        row = values[domain]
        cells = [round(100 * fmean(row[name]), 1) for name in COLUMNS]
        rows.append(
            [domain, f"`{headline_metric(domain)}`", len(row["oracle"]), *cells, beaten[domain]]
        )
    return Table(
        "Headline x100 per output, mean over the bundled steps",
        ["domain", "headline", "steps", *COLUMNS, "steps junk beats persistence"],
        rows,
    )


def main() -> None:
    """Print the table; with `--results`, write docs/results/adversarial.*."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", action="store_true", help="write docs/results/adversarial.*")
    options = parser.parse_args()
    run = ResultsRun(
        "adversarial",
        "Junk outputs against persistence",
        "On every bundled step, each domain's headline metric of junk outputs (empty, prose, "
        "half of the previous observation, a garbled copy, a 200-fold copy; seeded per step) "
        "beside persistence (the previous observation), the oracle (the real one) and a "
        "near-miss (the real one with one value changed). No junk output may score above "
        "persistence; the rewards are the headline when only metrics are present.",
    )
    result = [table(*measure())]
    show(result)
    if options.results:
        run.write(result)


if __name__ == "__main__":
    main()
