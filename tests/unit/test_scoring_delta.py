"""Delta headlines (screen_delta, text_delta, json_delta_f1): doing nothing scores 0, truth 1."""

from __future__ import annotations

import json
from itertools import pairwise

import pytest

from backend.scoring import MetricResult, headline_metric, score_observation
from backend.scoring.delta import MASK_LINE_LIMIT, delta_similarity

PROMPT = "user@box:~$"


def screens(commands: list[tuple[str, list[str]]], rows: int = 24) -> list[str]:
    """A terminal's visible screens as tmux shows them: they accumulate, then scroll."""
    lines = [PROMPT]
    shown = ["\n".join(lines)]
    for command, output in commands:
        lines[-1] = f"{PROMPT} {command}"
        lines += [*output, PROMPT]
        shown.append("\n".join(lines[-rows:]))
    return shown


SESSION = screens(
    [
        ("ls", ["a.txt  b.txt"]),
        ("cat a.txt", ["hello"]),
        ("seq 1 12", [str(i) for i in range(1, 13)]),
        ("python3 -c 'print(2+3)'", ["5"]),
        ("seq 100 110", [str(i) for i in range(100, 111)]),
    ]
)


def score(domain: str, predicted: str, real: str, previous: str | None) -> dict[str, MetricResult]:
    return {r.name: r for r in score_observation(domain, predicted, real, previous)}


def test_headlines_are_the_delta_metrics() -> None:
    assert headline_metric("terminal") == "screen_delta"
    assert headline_metric("swe") == "text_delta"
    assert headline_metric("mcp") == "json_delta_f1"


def test_persistence_scores_zero_on_accumulating_screens_the_plain_similarity_pays() -> None:
    for previous, real in pairwise(SESSION):
        scores = score("terminal", previous, real, previous)
        assert scores["screen_delta"].value == 0.0
        assert scores["screen_delta"].details["real_changed"] is True
        assert score("terminal", real, real, previous)["screen_delta"].value == 1.0
    before_scrolling = score("terminal", SESSION[-3], SESSION[-2], SESSION[-3])
    assert before_scrolling["screen_similarity"].value > 0.8  # why it cannot be the headline


def test_a_scrolled_screen_counts_only_the_lines_that_left_and_arrived() -> None:
    previous, real = SESSION[-2], SESSION[-1]  # 20 lines + 12 new: 8 leave the top
    scores = score("terminal", real, real, previous)
    details = scores["screen_delta"].details
    assert details["lines_removed_real"] == 8
    assert details["lines_added_real"] == 12  # the command line, 11 numbers; the prompt is kept
    new = [f"{PROMPT} seq 100 110", *(str(i) for i in range(100, 111)), PROMPT]
    unscrolled = "\n".join([*previous.split("\n")[:-1], *new])
    partial = score("terminal", unscrolled, real, previous)["screen_delta"]
    assert partial.details["added_similarity"] == 1.0
    # right output, but the 8 lines that should have scrolled away are charged against it
    assert 0.0 < partial.value < 0.5


def test_volatile_tokens_in_the_new_output_are_masked() -> None:
    previous = f"{PROMPT}"
    real = f"{PROMPT} date; sleep 1 &\n2024-05-01 10:11:12\n[1] 4242\n{PROMPT}"
    predicted = f"{PROMPT} date; sleep 1 &\n2023-01-02 03:04:05\n[1] 977\n{PROMPT}"
    scores = score("terminal", predicted, real, previous)
    assert scores["screen_delta"].value == 1.0
    assert scores["screen_delta"].details["volatile_masking"] == "on"
    assert score("swe", predicted, real, previous)["text_delta"].value < 1.0


def test_a_line_whose_only_change_is_a_clock_is_not_a_change() -> None:
    previous = "top - 10:11:12 up 3 days\nTasks: 97 total"
    real = "top - 10:11:15 up 3 days\nTasks: 97 total"
    assert score("terminal", previous, real, previous)["screen_delta"].value == 1.0
    changed = "top - 10:11:15 up 3 days\nTasks: 98 total"
    assert score("terminal", changed, real, previous)["screen_delta"].value == 0.0


def test_when_reality_changes_nothing_only_changing_nothing_is_right() -> None:
    for domain, name in (("swe", "text_delta"), ("terminal", "screen_delta")):
        same = score(domain, "written", "written", "written")[name]
        assert same.value == 1.0 and same.details["real_changed"] is False
        assert score(domain, "done", "written", "written")[name].value == 0.0


def test_partial_credit_inside_a_changed_line() -> None:
    previous = "$ wc -l data.csv"
    value = score("swe", "1234 data.csv", "1235 data.csv", previous)["text_delta"].value
    assert 0.7 < value < 1.0  # the wrong digit is missed and charged


def test_no_partial_credit_below_the_floor_or_for_what_the_old_line_shared() -> None:
    previous = "M r.txt"
    real = "1 0 r.txt"
    garbled_copy = score("swe", "M r.tat", real, previous)["text_delta"]
    assert garbled_copy.value == 0.0  # shares less with the new line than the old line does
    assert garbled_copy.details["partial_chars"] <= garbled_copy.details["old_lines_partial_chars"]
    assert score("swe", "1 0 r.txz", real, previous)["text_delta"].value > 0.5
    prose = "The screen now shows the result of the command."
    assert score("swe", prose, "total 0 drwxr-xr-x 2 root", "$ ls")["text_delta"].value == 0.0


def test_an_empty_prediction_earns_nothing_for_dropping_the_old_output() -> None:
    previous = "line one of the old output\nline two of the old output"
    real = "brand new output"
    empty = score("swe", "", real, previous)["text_delta"]
    assert empty.value == 0.0
    copied_and_right = score("swe", f"{previous}\n{real}", real, previous)["text_delta"]
    assert copied_and_right.details["added_similarity"] == 1.0
    assert copied_and_right.value == 0.0  # more old output wrongly kept than new output right
    short_stale = score("swe", f"old\n{real}", real, "old")["text_delta"]
    assert 0.5 < short_stale.value < 1.0


def test_whitespace_noise_does_not_count_as_a_change() -> None:
    previous = "a  b\r\nc"
    real = "a b\nc\nnew"
    assert score("swe", "a b  \r\nc\nnew  ", real, previous)["text_delta"].value == 1.0


@pytest.mark.parametrize(
    ("domain", "name"),
    [("terminal", "screen_delta"), ("swe", "text_delta"), ("mcp", "json_delta_f1")],
)
def test_unknown_previous_counts_as_empty_and_says_so(domain: str, name: str) -> None:
    predicted, real = '{"a": 1, "b": 2}', '{"a": 1, "b": 3}'
    unknown = score(domain, predicted, real, None)[name]
    assert unknown.value == score(domain, predicted, real, "")[name].value
    assert 0.0 < unknown.value < 1.0
    assert unknown.details["previous_known"] is False
    assert score(domain, "The result has a and b.", real, None)[name].value == 0.0


def test_masking_is_bounded_on_huge_rewrites() -> None:
    previous = "\n".join(f"old {i} at 10:00:{i % 60:02d}" for i in range(MASK_LINE_LIMIT))
    real = "\n".join(f"new {i} at 11:00:{i % 60:02d}" for i in range(MASK_LINE_LIMIT))
    result = score("terminal", real, real, previous)["screen_delta"]
    assert result.value == 1.0
    assert result.details["volatile_masking"].startswith("skipped")


def test_wrong_predicted_content_is_charged_against_the_right_content() -> None:
    value, details = delta_similarity("x", "x\nalpha beta", "x\nalpha gamma")
    assert details["lines_removed_predicted"] == details["lines_removed_real"] == 0
    matched, predicted, real = (
        details["matched_chars"],
        len("alpha beta") + 1,
        len("alpha gamma") + 1,
    )
    assert value == pytest.approx((2 * matched - (predicted - matched)) / (predicted + real))
    assert value < details["added_similarity"]


USER = {"name": {"first": "Mia", "last": "Li"}, "dob": "1990-04-05", "tier": "gold"}
RESERVATION = {"id": "ZFA04Y", "name": {"first": "Mia", "last": "Li"}, "status": "booked"}


def test_json_delta_gives_a_copied_tool_result_nothing() -> None:
    previous, real = json.dumps(USER), json.dumps(RESERVATION)
    copied = score("mcp", previous, real, previous)
    assert copied["json_kv_f1"].value > 0.3  # the shared name leaves
    assert copied["json_delta_f1"].value == 0.0
    assert score("mcp", real, real, previous)["json_delta_f1"].value == 1.0


def test_json_delta_counts_wrong_changed_values_and_wrongly_kept_leaves() -> None:
    previous, real = json.dumps(USER), json.dumps(RESERVATION)
    wrong_status = json.dumps({**RESERVATION, "status": "cancelled"})
    result = score("mcp", wrong_status, real, previous)["json_delta_f1"]
    # changed leaves: id, status, dropped: dob, tier; prediction gets id, misses status, and
    # its wrong status is charged against the right id
    assert result.value == pytest.approx((2 * 1 - 1) / (2 + 2 + 0))
    assert result.details["missed"] == [] and result.details["matched"] == 1
    kept_dob = json.dumps({**RESERVATION, "dob": "1990-04-05"})
    assert score("mcp", kept_dob, real, previous)["json_delta_f1"].value == pytest.approx(
        (2 * 2 - 1) / (2 + 2 + 1)
    )


def test_json_delta_edge_cases() -> None:
    real = json.dumps(RESERVATION)
    after_error = score("mcp", real, real, "Error: user not found")["json_delta_f1"]
    assert after_error.value == 1.0 and after_error.details["previous_is_json"] is False
    invalid = score("mcp", '{"id": ', real, json.dumps(USER))["json_delta_f1"]
    assert invalid.value == 0.0 and invalid.details["invalid_json"] is True
    error_text = score("mcp", "Error: no seat", "Error: no seat", real)["json_delta_f1"]
    assert error_text.value == 1.0 and error_text.details["fallback"] == "text_delta"
    assert score("mcp", real, "Error: no seat", real)["json_delta_f1"].value == 0.0
