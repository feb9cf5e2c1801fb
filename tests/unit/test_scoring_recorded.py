"""Real recorded transitions: full marks for the oracle, the right change F1 for persistence.

Every turn of every converted recording (shared/data/recorded) and of the bundled set is scored
with the truth as prediction; every transition of the tree domains is scored with the previous
state as prediction (what the persistence baseline predicts).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from backend.data.bundled import load_bundled
from backend.data.recorded import load_recorded
from backend.scoring import score_observation
from backend.scoring.base import checked_pair
from backend.scoring.domain_sets import DOMAIN_SETS
from backend.scoring.tree_change import changes
from backend.types import Trajectory

TREE_DOMAINS = {"web": "axtree", "os": "a11y_tree", "android": "android_xml"}


@pytest.fixture(scope="module")
def recorded(recorded_root: Path) -> list[Trajectory]:
    return load_recorded(recorded_root)


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
    assert {t.domain for t in recorded} == set(DOMAIN_SETS.names())
    assert {t.domain for t in load_bundled()} == set(DOMAIN_SETS.names())


@pytest.mark.parametrize("source", ["recorded", "bundled"])
def test_oracle_scores_one_on_every_metric(source: str, recorded: list[Trajectory]) -> None:
    trajectories = recorded if source == "recorded" else load_bundled()
    seen: dict[str, int] = {}
    for domain, previous, observation in transitions(trajectories):
        for result in score_observation(domain, observation, observation, previous):
            assert result.value == 1.0, (domain, result)
        seen[domain] = seen.get(domain, 0) + 1
    assert set(seen) == set(DOMAIN_SETS.names())


@pytest.mark.parametrize("source", ["recorded", "bundled"])
def test_persistence_change_f1_is_zero_exactly_when_the_state_changed(
    source: str, recorded: list[Trajectory]
) -> None:
    trajectories = recorded if source == "recorded" else load_bundled()
    changed = unchanged = 0
    for domain, previous, observation in transitions(trajectories):
        if domain not in TREE_DOMAINS or previous is None:
            continue
        pair = checked_pair(TREE_DOMAINS[domain], previous, observation, previous)
        real_changes = changes(pair.previous_tree, pair.reference_tree)
        results = score_observation(domain, previous, observation, previous)
        value = next(r.value for r in results if r.name == "change_f1")
        if real_changes:
            assert value == 0.0, (domain, real_changes)
            changed += 1
        else:
            assert value == 1.0
            unchanged += 1
    assert changed >= 10
