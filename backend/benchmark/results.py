"""`results.json`: per-engine, per-domain means of every score, with both Overall averages labelled.

Everything is recomputed from `items.jsonl`, so a resumed run's results cover all its items.
Failed items (engine or scoring errors) are counted, never averaged in as zeros and never
silently dropped: a table reader sees `failures` beside every mean.

Values computed by different versions of a metric are never averaged together: a metric whose
rows carry several versions is reported once per version (`name@vN`). The headline of a domain
is its current headline metric (`headline_metric`) at its current version when the rows carry
it; rows written before a headline changed (an old `items.jsonl`) keep the headline they were
scored with, so an old run still aggregates, and says which headline it shows.

Schema 2 added the bootstrap intervals and the `reproduction` block; schema 1 files still load.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from statistics import fmean

from pydantic import BaseModel, Field

from backend.benchmark.intervals import Interval, domain_intervals
from backend.benchmark.provenance import Reproduction
from backend.benchmark.store import ItemRow
from backend.confidence import GOOD_HEADLINE, auroc
from backend.scoring import headline_metric
from backend.scoring.base import METRICS
from backend.scoring.judge_parse import DIMENSIONS

RESULTS_SCHEMA = 2
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
    """One engine on one domain.

    Attributes:
        metrics: mean of every metric over the successful rows (`name@vN` when the rows carry
            several versions of one metric).
        metric_versions: the version behind each key of `metrics`.
        headline: the metric a table shows for the domain; `headline_version` its version.
        headline_value: its mean; `headline_interval` the bootstrap 95% interval of that mean.
        headline_items: how many successful rows carry the headline (fewer than the successful
            rows only when rows of different metric versions are mixed).
    """

    items: int
    failures: int
    metrics: dict[str, float]
    metric_versions: dict[str, int] = Field(default_factory=dict)
    headline: str
    headline_version: int | None = None
    headline_value: float | None
    headline_interval: Interval | None = None
    headline_items: int | None = None
    judge: JudgeStats | None = None
    confidence_auroc: float | None = Field(
        default=None,
        description="AUROC of the predictions' confidence against headline >= 0.5 (None when "
        "the engine gives no confidence, or every item falls on one side).",
    )


class Overall(BaseModel):
    """Both Overall averages of one quantity, each labelled, with bootstrap 95% intervals."""

    macro: float | None
    micro: float | None
    macro_label: str = MACRO_LABEL
    micro_label: str = MICRO_LABEL
    macro_interval: Interval | None = None
    micro_interval: Interval | None = None


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
    reproduction: Reproduction | None = None


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


MetricKey = tuple[str, int]


def _values(rows: list[ItemRow]) -> dict[MetricKey, list[float]]:
    """Every metric value of the rows, by (name, version)."""
    values: dict[MetricKey, list[float]] = defaultdict(list)
    for row in rows:
        for result in row.metrics:
            values[(result.name, result.version)].append(result.value)
    return values


def choose_headline(domain: str, rows: list[ItemRow]) -> MetricKey:
    """The domain's current headline when the rows carry it, else the one they were scored with.

    Rows of an older run carry the headline of their time (`row.headline`) at the version they
    were computed with; that pair is shown rather than nothing.
    """
    name = headline_metric(domain)
    current = (name, METRICS.get(name).version)
    carried = Counter((r.name, r.version) for row in rows for r in row.metrics)
    if current in carried or not rows:
        return current
    stored = Counter(row.headline for row in rows if row.headline).most_common(1)
    old_name = stored[0][0] if stored else name
    versions = [key for key in carried if key[0] == old_name]
    return max(versions, key=lambda key: carried[key]) if versions else current


def headline_of(row: ItemRow, headline: MetricKey) -> float | None:
    """The row's value of the (name, version) headline, None when it does not carry it."""
    return next((r.value for r in row.metrics if (r.name, r.version) == headline), None)


def _means(values: dict[MetricKey, list[float]]) -> tuple[dict[str, float], dict[str, int]]:
    versions_of: dict[str, list[int]] = defaultdict(list)
    for name, version in values:
        versions_of[name].append(version)
    means, versions = {}, {}
    for (name, version), vals in values.items():
        key = name if len(versions_of[name]) == 1 else f"{name}@v{version}"
        means[key], versions[key] = fmean(vals), version
    return means, versions


@dataclass(frozen=True)
class HeadlineValues:
    """A domain's headline (name, version) and its per-item values, ordered by item id."""

    key: MetricKey
    values: list[float]


def headline_values(domain: str, ok: list[ItemRow]) -> HeadlineValues:
    """The headline of the domain's successful rows and the values of the rows that carry it."""
    key = choose_headline(domain, ok)
    found = (headline_of(row, key) for row in sorted(ok, key=lambda row: row.item_id))
    return HeadlineValues(key, [value for value in found if value is not None])


def domain_stats(domain: str, rows: list[ItemRow], interval: Interval | None = None) -> DomainStats:
    """Means over the successful rows of one engine on one domain."""
    ok = [row for row in rows if row.status == "ok"]
    means, versions = _means(_values(ok))
    headline = headline_values(domain, ok)
    return DomainStats(
        items=len(rows),
        failures=len(rows) - len(ok),
        metrics=means,
        metric_versions=versions,
        headline=headline.key[0],
        headline_version=headline.key[1],
        headline_value=_mean(headline.values),
        headline_interval=interval,
        headline_items=len(headline.values),
        judge=judge_stats(ok),
        confidence_auroc=confidence_auroc(ok, headline.key),
    )


def confidence_auroc(ok: list[ItemRow], headline: MetricKey) -> float | None:
    """How well the rows' confidence picks out their good predictions (headline >= 0.5)."""
    pairs = [
        (row.confidence, value)
        for row in ok
        if row.confidence is not None and (value := headline_of(row, headline)) is not None
    ]
    return auroc([c for c, _ in pairs], [value >= GOOD_HEADLINE for _, value in pairs])


def engine_stats(rows: list[ItemRow]) -> EngineStats:
    """Per-domain stats and both Overall averages (with intervals) for one engine's rows."""
    by_domain: dict[str, list[ItemRow]] = defaultdict(list)
    for row in rows:
        by_domain[row.domain].append(row)
    ok = [row for row in rows if row.status == "ok"]
    per_domain = {
        domain: headline_values(domain, [row for row in ok if row.domain == domain]).values
        for domain in sorted(by_domain)
    }
    intervals, macro_interval, micro_interval = domain_intervals(per_domain)
    domains = {d: domain_stats(d, by_domain[d], intervals.get(d)) for d in sorted(by_domain)}
    headline_overall = Overall(
        macro=_mean([s.headline_value for s in domains.values() if s.headline_value is not None]),
        micro=_mean([value for values in per_domain.values() for value in values]),
        macro_interval=macro_interval,
        micro_interval=micro_interval,
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


def aggregate(
    rows: list[ItemRow],
    dataset: str,
    history_mode: str,
    reproduction: Reproduction | None = None,
) -> BenchResults:
    """The results of every engine present in `rows`, engines in first-seen order."""
    by_engine: dict[str, list[ItemRow]] = defaultdict(list)
    for row in rows:
        by_engine[row.engine].append(row)
    return BenchResults(
        dataset=dataset,
        history_mode=history_mode,
        engines={engine: engine_stats(engine_rows) for engine, engine_rows in by_engine.items()},
        reproduction=reproduction,
    )
