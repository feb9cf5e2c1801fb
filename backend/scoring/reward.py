"""One reward in [0, 1] per prediction from deterministic metrics, the judge and a human label.

Formula `reward-v3` (bump FORMULA_VERSION whenever any part changes):

- deterministic `D` = the value of the domain's headline metric (see `headline_metric`); v2
  follows the headlines that measure the change from the previous observation (terminal
  `screen_delta`, swe `text_delta`, mcp `json_delta_f1`; v1 used the plain similarities and
  key/value F1, which pay a copy of the previous observation); v3 follows their version 2 (and
  `change_f1` version 2), which charge wrong content against right content, so no junk output
  (empty, prose, a truncated, garbled or 200-fold copy) earns more than persistence;
- judge `J` = `(mean of the non-zero rubric scores - 1) / 4`, the official normalisation;
- human `H` = the same normalisation of an annotator's rubric ratings;
- reward = `(wD * D + wJ * J + wH * H) / (wD + wJ + wH)` over the components that are present,
  with `wD = 1`, `wJ = 1`, `wH = 2`.

The human label is the ground truth a correction is made from, so it weighs as much as the other
two together; the judge and the metrics weigh the same because neither is calibrated against
people yet. A missing component drops out of the mean instead of counting as 0.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from backend.errors import BadInputError
from backend.scoring.base import MetricResult
from backend.scoring.score import headline_metric

FORMULA_VERSION = "reward-v3"
WEIGHTS = {"deterministic": 1.0, "judge": 1.0, "human": 2.0}
RUBRIC_MIN, RUBRIC_MAX = 1, 5


class RewardResult(BaseModel):
    """A combined reward with everything needed to recompute it.

    Attributes:
        value: the reward in [0, 1].
        formula_version: which formula produced it.
        components: the normalised value of each component present, by name.
        weights: the weight each present component had.
    """

    value: float = Field(ge=0.0, le=1.0)
    formula_version: str = FORMULA_VERSION
    components: dict[str, float]
    weights: dict[str, float]


def rubric_fraction(scores: dict[str, int]) -> float:
    """`(mean of the non-zero scores - 1) / 4`: zeros mark dimensions that were not rated.

    Raises:
        BadInputError: no dimension was rated, or a score is outside 0-5.
    """
    if any(not 0 <= value <= RUBRIC_MAX for value in scores.values()):
        raise BadInputError(f"Rubric scores must be 1-5 (0 = not rated); got {scores}.")
    rated = [value for value in scores.values() if value]
    if not rated:
        raise BadInputError("No rubric dimension was rated.")
    return (sum(rated) / len(rated) - RUBRIC_MIN) / (RUBRIC_MAX - RUBRIC_MIN)


def combine_reward(
    domain: str,
    metrics: list[MetricResult],
    judge: dict[str, int] | None = None,
    human: dict[str, int] | None = None,
) -> RewardResult:
    """Combine the signals of one prediction into one reward (formula in the module docstring).

    Args:
        domain: the prediction's domain; picks the headline metric.
        metrics: the deterministic results (`score_observation`); may be empty.
        judge: the judge's 1-5 rubric scores by dimension, when a judge ran.
        human: an annotator's 1-5 rubric ratings by dimension, when labelled.

    Raises:
        BadInputError: no component is present, or rubric scores are out of range.
        UnknownNameError: the domain has no metric set.
    """
    headline = headline_metric(domain)
    components: dict[str, float] = {}
    found = next((m for m in metrics if m.name == headline), None)
    if found is not None:
        components["deterministic"] = found.value
    if judge:
        components["judge"] = rubric_fraction(judge)
    if human:
        components["human"] = rubric_fraction(human)
    if not components:
        raise BadInputError(
            f"Nothing to combine: no {headline!r} metric, no judge scores, no human ratings."
        )
    weights = {name: WEIGHTS[name] for name in components}
    value = sum(weights[name] * components[name] for name in components) / sum(weights.values())
    return RewardResult(value=value, components=components, weights=weights)
