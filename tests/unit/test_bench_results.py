"""results.json: old rows and old files still read, versions never mixed, intervals, the table."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from backend.benchmark.intervals import domain_intervals
from backend.benchmark.report import format_table, write_chart
from backend.benchmark.results import RESULTS_SCHEMA, BenchResults, aggregate
from backend.benchmark.store import ItemRow
from backend.scoring.base import MetricResult


def old_row(item: str, similarity: float) -> ItemRow:
    """A terminal row as the first release wrote it: no screen_delta, plain similarity headline."""
    line = {
        "schema_version": 1,
        "engine": "persistence",
        "model": "baseline:persistence",
        "item_id": item,
        "domain": "terminal",
        "status": "ok",
        "error": None,
        "predicted": "$",
        "finish_reason": "baseline",
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "latency_s": 0.0,
        "diagnostics": None,
        "metrics": [
            {"name": "screen_exact", "version": 1, "value": 0.0, "details": {}},
            {"name": "screen_similarity", "version": 1, "value": similarity, "details": {}},
        ],
        "headline": "screen_similarity",
        "headline_value": similarity,
        "judge": None,
    }
    return ItemRow.model_validate_json(json.dumps(line))


def row(item: str, domain: str, metrics: list[tuple[str, int, float]]) -> ItemRow:
    return ItemRow(
        engine="e",
        model="m",
        item_id=item,
        domain=domain,
        status="ok",
        metrics=[MetricResult(name=n, version=v, value=x) for n, v, x in metrics],
    )


def test_rows_of_an_older_release_aggregate_under_their_own_headline() -> None:
    results = aggregate([old_row("t#1", 0.6), old_row("t#2", 0.8)], "bundled", "teacher_forced")
    terminal = results.engines["persistence"].domains["terminal"]
    assert (terminal.headline, terminal.headline_version) == ("screen_similarity", 1)
    assert terminal.headline_value == pytest.approx(0.7)
    assert terminal.headline_items == 2
    assert results.engines["persistence"].headline_overall.micro == pytest.approx(0.7)
    assert "terminal (screen_similarity)" in format_table(results)


def test_values_of_different_metric_versions_are_never_averaged_together() -> None:
    rows = [
        row("s#1", "swe", [("text_delta", 1, 0.2), ("line_f1", 1, 0.5)]),
        row("s#2", "swe", [("text_delta", 7, 0.9), ("line_f1", 1, 0.7)]),
    ]
    swe = aggregate(rows, "x", "blind").engines["e"].domains["swe"]
    assert swe.metrics == pytest.approx(
        {"text_delta@v1": 0.2, "text_delta@v7": 0.9, "line_f1": 0.6}
    )
    assert swe.metric_versions == {"text_delta@v1": 1, "text_delta@v7": 7, "line_f1": 1}
    assert (swe.headline, swe.headline_version, swe.headline_items) == ("text_delta", 1, 1)
    assert swe.headline_value == pytest.approx(0.2)


SCHEMA_1 = {
    "schema_version": 1,
    "dataset": "bundled",
    "history_mode": "teacher_forced",
    "created_at": "2026-01-01T00:00:00+00:00",
    "engines": {
        "persistence": {
            "model": "baseline:persistence",
            "items": 56,
            "failures": 0,
            "finish_reasons": {"baseline": 56},
            "domains": {
                "terminal": {
                    "items": 56,
                    "failures": 0,
                    "metrics": {"screen_similarity": 0.086},
                    "headline": "screen_similarity",
                    "headline_value": 0.086,
                    "judge": None,
                }
            },
            "headline_overall": {
                "macro": 0.086,
                "micro": 0.086,
                "macro_label": "macro: ...",
                "micro_label": "micro: ...",
            },
            "judge_overall": None,
        }
    },
}


def test_a_schema_1_results_file_still_loads_and_renders(tmp_path: Path) -> None:
    results = BenchResults.model_validate(SCHEMA_1)
    assert results.schema_version == 1 < RESULTS_SCHEMA
    assert results.reproduction is None
    table = format_table(results)
    assert "8.6" in table and "terminal (screen_similarity)" in table
    assert write_chart(results, tmp_path).read_bytes()[:4] == b"\x89PNG"


def test_intervals_match_scipy_and_are_reproducible() -> None:
    rng = np.random.default_rng(5)
    values = {"a": list(rng.random(60)), "b": list(rng.random(30) * 0.2)}
    intervals, macro, micro = domain_intervals(values)
    assert domain_intervals(values) == (intervals, macro, micro)
    reference = stats.bootstrap(
        (np.array(values["a"]),), np.mean, method="percentile", n_resamples=20_000, rng=1
    ).confidence_interval
    assert intervals["a"] == pytest.approx((reference.low, reference.high), abs=0.015)
    mean_a, mean_b = np.mean(values["a"]), np.mean(values["b"])
    assert macro is not None and macro[0] < (mean_a + mean_b) / 2 < macro[1]
    assert micro is not None and micro[0] < np.mean(values["a"] + values["b"]) < micro[1]
    alone, _, _ = domain_intervals({"a": values["a"]})
    assert alone["a"] == intervals["a"]  # other domains do not move a domain's interval
    constant, _, _ = domain_intervals({"c": [1.0, 1.0, 1.0]})
    assert constant["c"] == (1.0, 1.0)
    assert domain_intervals({"d": []}) == ({}, None, None)


def test_the_table_shows_each_mean_with_its_interval() -> None:
    rows = [row(f"s#{i}", "swe", [("text_delta", 1, i / 10)]) for i in range(11)]
    results = aggregate(rows, "x", "blind")
    swe = results.engines["e"].domains["swe"]
    assert swe.headline_interval is not None
    low, high = swe.headline_interval
    assert low < 0.5 < high
    line = next(line for line in format_table(results).split("\n") if "(text_delta)" in line)
    assert line.split() == [
        "swe",
        "(text_delta)",
        "50.0",
        f"[{low * 100:.1f},",
        f"{high * 100:.1f}]",
    ]
