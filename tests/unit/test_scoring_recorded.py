"""Real recorded transitions: full marks for the oracle, the right headline for persistence.

Every turn of every converted recording (shared/data/recorded) and of the bundled set is scored
with the truth as prediction; every transition of the tree, terminal, swe and mcp domains is
scored with the previous observation as prediction (what the persistence baseline predicts).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from backend.data.bundled import load_bundled
from backend.data.recorded import load_recorded
from backend.domains.base import all_domains
from backend.scoring import score_observation
from backend.scoring.base import checked_pair
from backend.scoring.score import metric_set
from backend.scoring.text import normalise_whitespace
from backend.scoring.tree_change import changes
from backend.types import Trajectory

TREE_DOMAINS = {"web": "axtree", "os": "a11y_tree", "android": "android_xml"}


@pytest.fixture(scope="module")
def recorded(recorded_root: Path) -> list[Trajectory]:
    return load_recorded(recorded_root)


def names() -> set[str]:
    """The registered domains' names (every one has recorded data and a metric set)."""
    return {domain.name for domain in all_domains()}


def transitions(trajectories: list[Trajectory]) -> list[tuple[str, str | None, str]]:
    """(domain, previous observation or None, observation) for every known observation."""
    out = []
    for trajectory in trajectories:
        previous = trajectory.initial_state
        for turn in trajectory.turns:
            if turn.observation is not None:
                out.append((trajectory.domain, previous, turn.observation))
            previous = turn.observation
    return out


def test_recordings_cover_all_seven_domains(recorded: list[Trajectory]) -> None:
    assert {t.domain for t in recorded} == names()
    assert {t.domain for t in load_bundled()} == names()


@pytest.mark.parametrize("source", ["recorded", "bundled"])
def test_oracle_scores_one_on_every_metric(source: str, recorded: list[Trajectory]) -> None:
    trajectories = recorded if source == "recorded" else load_bundled()
    seen: dict[str, int] = {}
    for domain, previous, observation in transitions(trajectories):
        for result in score_observation(domain, observation, observation, previous):
            assert result.value == 1.0, (domain, result)
        seen[domain] = seen.get(domain, 0) + 1
    assert set(seen) == names()


def really_changed(domain: str, previous: str, observation: str, details: dict[str, Any]) -> bool:
    """Whether the real observation differs from the previous one, as the headline must judge."""
    if domain in TREE_DOMAINS:
        pair = checked_pair(TREE_DOMAINS[domain], previous, observation, previous)
        return bool(changes(pair.previous_tree, pair.reference_tree))
    if normalise_whitespace(previous) == normalise_whitespace(observation):
        assert details["real_changed"] is False
    return bool(details["real_changed"])


@pytest.mark.parametrize("source", ["recorded", "bundled"])
def test_persistence_headline_is_zero_exactly_when_the_observation_changed(
    source: str, recorded: list[Trajectory]
) -> None:
    """Every headline but search's: copying the previous observation earns nothing unless right."""
    trajectories = recorded if source == "recorded" else load_bundled()
    seen: Counter[tuple[str, bool]] = Counter()
    for domain, previous, observation in transitions(trajectories):
        if domain == "search" or previous is None:
            continue
        headline = metric_set(domain).headline
        results = score_observation(domain, previous, observation, previous)
        result = next(r for r in results if r.name == headline)
        changed = really_changed(domain, previous, observation, result.details)
        assert result.value == (0.0 if changed else 1.0), (domain, result.details)
        seen[(domain, changed)] += 1
    assert {domain for domain, changed in seen if changed} == names() - {"search"}
    unchanged = sum(n for (_, changed), n in seen.items() if not changed)
    assert sum(seen.values()) - unchanged >= 10 * unchanged
