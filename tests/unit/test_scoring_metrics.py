"""Text, screen, JSON and search metrics on hand-made cases with known answers."""

from __future__ import annotations

import json

import pytest

from backend.domains.base import all_domains
from backend.errors import UnknownNameError
from backend.scoring import MetricResult, headline_metric, score_observation
from backend.scoring.patience import align, similarity
from backend.scoring.score import metric_set
from backend.scoring.screen import mask_volatile
from backend.scoring.search import parse_results


def by_name(results: list[MetricResult]) -> dict[str, MetricResult]:
    return {result.name: result for result in results}


def test_every_domain_has_a_set_and_a_headline() -> None:
    for domain in all_domains():
        assert headline_metric(domain.name) in metric_set(domain.name).metrics
    with pytest.raises(UnknownNameError, match="Did you mean 'terminal'"):
        headline_metric("termnal")


def test_results_are_versioned_and_serialisable() -> None:
    for result in score_observation("swe", "a\nb", "a\nc"):
        assert result.version >= 1
        json.dumps(result.model_dump())


def test_text_metrics_ignore_whitespace_noise() -> None:
    scores = by_name(score_observation("swe", "  ok  \r\nnext   line\n\n", "ok\nnext line"))
    assert scores["text_exact"].value == 1.0
    assert scores["line_f1"].value == 1.0


def test_line_f1_counts_duplicates() -> None:
    scores = by_name(score_observation("swe", "a\na\nb", "a\nb\nc"))
    line = scores["line_f1"]
    assert (line.details["precision"], line.details["recall"]) == (2 / 3, 2 / 3)


def test_patience_similarity_gives_partial_credit_inside_a_changed_line() -> None:
    value, details = similarity("total 42\nok", "total 43\nok")
    assert details["equal_lines"] == 1
    assert 0.8 < value < 1.0
    assert similarity("", "")[0] == 1.0
    assert similarity("abc", "xyz")[0] == 0.0


def test_alignment_survives_inputs_the_package_matcher_rejects() -> None:
    """patiencediff's own matcher panics past 10 recursion levels, e.g. on long char runs."""
    a = "ab" * 2_000 + "x" + "ba" * 2_000
    b = "ab" * 1_999 + "y" + "ba" * 2_001
    pairs = align(a, b)
    assert all(a[i] == b[j] for i, j in pairs)
    assert len(pairs) > 7_000


def test_screen_masks_volatile_tokens_and_keeps_the_raw_value() -> None:
    real = "$ date\n2024-05-01 10:11:12\n$ mktemp\n/tmp/tmp.ClZ2QL9jos\n[1] 4242\nreal\t0m0.003s"
    predicted = (
        "$ date\n2023-01-02 03:04:05\n$ mktemp\n/tmp/tmp.Ab12Cd34Ef\n[1] 977\nreal\t0m1.250s"
    )
    scores = by_name(score_observation("terminal", predicted, real))
    assert scores["screen_exact"].value == 1.0
    assert scores["screen_exact"].details["raw_value"] == 0.0
    assert scores["text_exact"].value == 0.0
    masked, counts = mask_volatile(real)
    assert "<DATETIME>" in masked and "<TMP>" in masked and "<PID>" in masked
    assert counts["<DURATION>"] == 1


def test_screen_keeps_deterministic_content() -> None:
    scores = by_name(score_observation("terminal", "$ echo hi\nhello", "$ echo hi\nhi"))
    assert scores["screen_exact"].value == 0.0


def test_json_key_value_f1_and_tolerance() -> None:
    real = json.dumps({"user": {"id": 7, "name": "Ann"}, "balance": 100.0, "tags": ["a", "b"]})
    predicted = json.dumps({"tags": ["a", "b"], "balance": 105.0, "user": {"name": "Ann", "id": 7}})
    scores = by_name(score_observation("mcp", predicted, real))
    assert scores["json_kv_f1"].value == pytest.approx(4 / 5)
    assert scores["json_kv_f1"].details["wrong_values"] == ["$.balance"]
    assert scores["json_kv_f1_tol10"].value == 1.0
    assert scores["json_valid"].value == 1.0


def test_json_inside_an_mcp_text_block_is_compared_by_structure() -> None:
    def wrap(payload: dict[str, object]) -> str:
        return json.dumps({"content": [{"type": "text", "text": json.dumps(payload)}]})

    value = by_name(score_observation("mcp", wrap({"a": 1, "b": 2}), wrap({"b": 2, "a": 1})))
    assert value["json_kv_f1"].value == 1.0


def test_json_booleans_are_not_numbers() -> None:
    scores = by_name(score_observation("mcp", '{"ok": 1}', '{"ok": true}'))
    assert scores["json_kv_f1"].value == 0.0


def test_invalid_json_prediction_is_scored_and_reported() -> None:
    scores = by_name(score_observation("mcp", '{"a": 1,,}', '{"a": 1}'))
    assert scores["json_kv_f1"].value == 0.0
    assert scores["json_kv_f1"].details["invalid_json"] is True
    assert "invalid JSON" in scores["json_valid"].details["error"]


def test_non_json_reference_falls_back_to_text() -> None:
    scores = by_name(score_observation("mcp", "Error: user not found", "Error: user not found"))
    assert scores["json_kv_f1"].value == 1.0
    assert scores["json_kv_f1"].details["reference_is_json"] is False


SEARCH_REAL = """[1] https://www.example.com/a
Title: Alpha page
Snippet: first
Date: 2024-01-01

[2] https://example.org/b/
Title: Beta page
Snippet: second"""


def test_search_results_are_parsed_from_text_and_json() -> None:
    assert [(r.url, r.title) for r in parse_results(SEARCH_REAL)] == [
        ("example.com/a", "alpha page"),
        ("example.org/b", "beta page"),
    ]
    payload = json.dumps(
        {"search_result": [{"link": "http://example.com/a", "title": "Alpha page"}]}
    )
    assert [(r.url, r.title) for r in parse_results(payload)] == [("example.com/a", "alpha page")]


def test_search_overlap_per_result() -> None:
    predicted = SEARCH_REAL.replace("Beta page", "Gamma page").replace("example.org/b/", "x.org/c")
    overlap = by_name(score_observation("search", predicted, SEARCH_REAL))["search_overlap"]
    assert overlap.value == pytest.approx(0.5)
    assert overlap.details["url_f1"] == 0.5


def results(*pages: str) -> str:
    return "\n\n".join(f"[{i}] https://{page}.com\nTitle: {page}" for i, page in enumerate(pages))


def test_search_delta_pays_the_new_results_not_a_shorter_copy() -> None:
    previous = results("a", "b", "c", "d", "e", "f")
    real = results("a", "x", "y", "z")  # a repeated; b-f dropped; x, y, z new
    scores = by_name(score_observation("search", previous, real, previous))
    half = results("a", "b", "c")
    half_scores = by_name(score_observation("search", half, real, previous))
    # version 1's headline: the first half beats the whole copy by dropping what reality dropped
    assert half_scores["search_overlap"].value > scores["search_overlap"].value > 0.0
    assert half_scores["search_delta"].value == scores["search_delta"].value == 0.0
    assert by_name(score_observation("search", real, real, previous))["search_delta"].value == 1.0
    partial = by_name(score_observation("search", results("a", "x", "y"), real, previous))
    assert partial["search_delta"].value == pytest.approx(2 * 2 / (2 + 3))
    repeated = by_name(score_observation("search", previous, previous, previous))["search_delta"]
    assert repeated.value == 1.0  # the same query again: the copy is right


def test_search_page_without_results_falls_back_to_lines() -> None:
    page = "# Box office 2020\n\n| rank | film |\n| 1 | Bad Boys |"
    overlap = by_name(score_observation("search", page, page))["search_overlap"]
    assert overlap.value == 1.0
    assert overlap.details["fallback"] == "line_f1"
    delta = by_name(score_observation("search", page, page, SEARCH_REAL))["search_delta"]
    assert delta.value == 1.0 and delta.details["fallback"] == "text_delta"
