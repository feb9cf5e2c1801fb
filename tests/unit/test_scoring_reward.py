"""The documented reward combination (reward-v3)."""

from __future__ import annotations

import pytest

from backend.errors import BadInputError
from backend.scoring import MetricResult, score_observation
from backend.scoring.reward import FORMULA_VERSION, combine_reward, rubric_fraction

FULL = {"format": 5, "factuality": 5, "consistency": 5, "realism": 5, "quality": 5}


def test_metrics_only_uses_the_headline() -> None:
    metrics = score_observation("swe", "a\nb\nd", "a\nc\nd", previous="a")
    headline = next(m for m in metrics if m.name == "text_delta")
    assert headline.value != next(m.value for m in metrics if m.name == "text_similarity")
    reward = combine_reward("swe", metrics)
    assert reward.value == pytest.approx(headline.value)
    assert reward.formula_version == FORMULA_VERSION == "reward-v3"
    assert reward.components == {"deterministic": headline.value}


def test_weights_and_normalisation() -> None:
    metrics = [MetricResult(name="change_f1", version=1, value=0.0)]
    low = dict.fromkeys(FULL, 1)
    reward = combine_reward("web", metrics, judge=FULL, human=low)
    # (1 * 0 + 1 * 1 + 2 * 0) / 4
    assert reward.value == pytest.approx(0.25)
    assert reward.weights == {"deterministic": 1.0, "judge": 1.0, "human": 2.0}


def test_zero_means_not_rated() -> None:
    assert rubric_fraction({"format": 5, "factuality": 0, "quality": 3}) == pytest.approx(0.75)


@pytest.mark.parametrize("bad", [{"format": 7}, {"format": 0}, {"format": -1}])
def test_bad_rubric_scores_are_refused(bad: dict[str, int]) -> None:
    with pytest.raises(BadInputError):
        rubric_fraction(bad)


def test_nothing_to_combine_is_an_error() -> None:
    with pytest.raises(BadInputError, match="Nothing to combine"):
        combine_reward("web", [])
