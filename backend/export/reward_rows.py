"""Reward rows: the prompt, the reference and every signal the combined reward is made of."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel

from backend.errors import BadInputError
from backend.export.prompt import prompt_messages
from backend.export.records import ExportContext, ExportRecord
from backend.export.rows import RatingColumn, RewardPart, RewardRow, ScoreColumn
from backend.scoring import MetricResult, headline_metric
from backend.scoring.judge import JUDGE_PREFIX
from backend.scoring.reward import combine_reward
from backend.stepping import compare


def _metrics(record: ExportRecord, reference: str) -> list[MetricResult]:
    """Stored metrics when they were computed against this reference, else scored afresh.

    Stored scores compare the prediction with the real observation; once an annotator corrected
    it, the metrics must compare with the correction, so they are recomputed.
    """
    stored = [s for s in record.scores if not s.is_judge]
    headline = headline_metric(record.domain)
    if reference == record.real_observation and any(s.name == headline for s in stored):
        return [
            MetricResult(name=s.name, version=int(s.version), value=s.value)
            for s in stored
            if s.version.isdigit() and 0.0 <= s.value <= 1.0
        ]
    # An unparsable reference has no metrics: the judge and human signals may still stand.
    return compare(
        record.domain, record.predicted_observation, reference, record.previous_observation
    ).results


def build_reward(record: ExportRecord, ctx: ExportContext) -> Iterator[BaseModel]:
    """One row per prediction with a known truth; none when no signal can be combined."""
    reference = record.reference
    if reference is None:
        return
    metrics = _metrics(record, reference)
    judge = {s.name.removeprefix(JUDGE_PREFIX): int(s.value) for s in record.scores if s.is_judge}
    human: dict[str, int] = {}
    if record.annotation is not None:
        human = {k: v for k, v in record.annotation.ratings.items() if v is not None}
    try:
        combined = combine_reward(record.domain, metrics, judge or None, human or None)
    except BadInputError:
        return
    yield RewardRow(
        **record.links(),
        prompt=prompt_messages(record, ctx.prompt_of(record)),
        reference=reference,
        previous=record.previous_observation,
        prediction=record.predicted_observation,
        metrics=[ScoreColumn(name=m.name, version=str(m.version), value=m.value) for m in metrics],
        judge=[RatingColumn(dimension=k, value=v) for k, v in judge.items()],
        human=[RatingColumn(dimension=k, value=v) for k, v in human.items()],
        reward=combined.value,
        reward_formula=combined.formula_version,
        reward_components=[
            RewardPart(name=name, value=value, weight=combined.weights[name])
            for name, value in combined.components.items()
        ],
    )
