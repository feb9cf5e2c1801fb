"""`results.json`: per-engine, per-domain means of every score, with both Overall averages labelled.

Everything is recomputed from `items.jsonl`, so a resumed run's results cover all its items.
Failed items (engine or scoring errors) are counted, never averaged in as zeros and never
silently dropped: a table reader sees `failures` beside every mean.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import UTC, datetime
from statistics import fmean

from pydantic import BaseModel, Field

from backend.benchmark.store import ItemRow
from backend.scoring import headline_metric
from backend.scoring.judge_parse import DIMENSIONS

RESULTS_SCHEMA = 1
MACRO_LABEL = "macro: mean over domains of each domain's mean (the paper's Overall)"
MICRO_LABEL = "micro: mean over all items pooled (the shipped scorer's Overall)"


class JudgeStats(BaseModel):
    """Judge scores of one domain: dimension means (1-5) and the 0-100 score."""

    judged: int
    failures: int
    dimensions: dict[str, float]
    score_100: float | None
    judge_models: list[str]
    prompt_versions: list[str]
    temperatures: list[float]


class DomainStats(BaseModel):
    """One engine on one domain."""

    items: int
    failures: int
    metrics: dict[str, float]
    headline: str
    headline_value: float | None
    judge: JudgeStats | None = None


class Overall(BaseModel):
    """Both Overall averages of one quantity, each labelled."""

    macro: float | None
    micro: float | None
    macro_label: str = MACRO_LABEL
    micro_label: str = MICRO_LABEL


class EngineStats(BaseModel):
    """One engine over the whole dataset."""

    model: str
    items: int
    failures: int
    finish_reasons: dict[str, int]
    domains: dict[str, DomainStats]
    headline_overall: Overall
    judge_overall: Overall | None = None


class BenchResults(BaseModel):
    """The results file (versioned wire format)."""

    schema_version: int = RESULTS_SCHEMA
    dataset: str
    history_mode: str
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())
    engines: dict[str, EngineStats]


def _mean(values: list[float]) -> float | None:
    return fmean(values) if values else None


def judge_stats(rows: list[ItemRow]) -> JudgeStats | None:
    """Judge aggregates of rows that were judged; None when none was."""
    verdicts = [row.judge for row in rows if row.judge is not None]
    if not verdicts:
        return None
    good = [v for v in verdicts if not v.failed]
    dims = {d: _mean([v.scores[d] for v in good if v.scores.get(d)]) for d in DIMENSIONS}
    return JudgeStats(
        judged=len(verdicts),
        failures=len(verdicts) - len(good),
        dimensions={d: value for d, value in dims.items() if value is not None},
        score_100=_mean([v.score_100 for v in good if v.score_100 is not None]),
        judge_models=sorted({f"{v.judge_engine}:{v.judge_model}" for v in verdicts}),
        prompt_versions=sorted({v.prompt_version for v in verdicts}),
        temperatures=sorted({v.temperature for v in verdicts}),
    )


def domain_stats(domain: str, rows: list[ItemRow]) -> DomainStats:
    """Means over the successful rows of one engine on one domain."""
    ok = [row for row in rows if row.status == "ok"]
    values: dict[str, list[float]] = defaultdict(list)
    for row in ok:
        for result in row.metrics:
            values[result.name].append(result.value)
    headline = headline_metric(domain)
    return DomainStats(
        items=len(rows),
        failures=len(rows) - len(ok),
        metrics={name: fmean(vals) for name, vals in values.items()},
        headline=headline,
        headline_value=_mean(values.get(headline, [])),
        judge=judge_stats(ok),
    )


def engine_stats(rows: list[ItemRow]) -> EngineStats:
    """Per-domain stats and both Overall averages for one engine's rows."""
    by_domain: dict[str, list[ItemRow]] = defaultdict(list)
    for row in rows:
        by_domain[row.domain].append(row)
    domains = {d: domain_stats(d, by_domain[d]) for d in sorted(by_domain)}
    ok = [row for row in rows if row.status == "ok"]
    headline_overall = Overall(
        macro=_mean([s.headline_value for s in domains.values() if s.headline_value is not None]),
        micro=_mean([row.headline_value for row in ok if row.headline_value is not None]),
    )
    judged = [
        s.judge.score_100 for s in domains.values() if s.judge and s.judge.score_100 is not None
    ]
    pooled = [
        row.judge.score_100
        for row in ok
        if row.judge is not None and row.judge.score_100 is not None
    ]
    any_judge = any(row.judge is not None for row in ok)
    return EngineStats(
        model=rows[0].model if rows else "",
        items=len(rows),
        failures=len(rows) - len(ok),
        finish_reasons=dict(Counter(row.finish_reason or "none" for row in rows)),
        domains=domains,
        headline_overall=headline_overall,
        judge_overall=Overall(macro=_mean(judged), micro=_mean(pooled)) if any_judge else None,
    )


def aggregate(rows: list[ItemRow], dataset: str, history_mode: str) -> BenchResults:
    """The results of every engine present in `rows`, engines in first-seen order."""
    by_engine: dict[str, list[ItemRow]] = defaultdict(list)
    for row in rows:
        by_engine[row.engine].append(row)
    return BenchResults(
        dataset=dataset,
        history_mode=history_mode,
        engines={engine: engine_stats(engine_rows) for engine, engine_rows in by_engine.items()},
    )
