"""Judge answers as judge models really write them: fenced, bare, sloppy, thinking, broken."""

from __future__ import annotations

import pytest

from backend.scoring.judge_parse import (
    JudgeParseError,
    clamp_score,
    parse_boxed_choice,
    parse_final_evaluation,
)

SCORES = '"scores": {"format": 5, "factuality": 4, "consistency": 3, "realism": 4, "quality": 2}'
EXPECTED = {"format": 5, "factuality": 4, "consistency": 3, "realism": 4, "quality": 2}


@pytest.mark.parametrize(
    "answer",
    [
        f'Reasoning...\n<final_evaluation>\n{{"strengths": ["a"], "weaknesses": [], {SCORES}}}\n'
        "</final_evaluation>",
        f"<final_evaluation>\n```json\n{{{SCORES}}}\n```\n</final_evaluation>",
        f"<final_evaluation>{{{SCORES},}}",  # trailing comma, closing tag missing
        f"no tags at all, just {{{SCORES}}}",
        f"```json\n{{{SCORES}}}\n```",
        f'<think>draft <final_evaluation>{{"scores": {{"format": 1}}}}</final_evaluation></think>'
        f"<final_evaluation>{{{SCORES}}}</final_evaluation>",
        f"<final_evaluation>{{{SCORES.replace('format', 'FORMAT')}}}</final_evaluation>",
    ],
)
def test_sloppy_answers_parse(answer: str) -> None:
    assert parse_final_evaluation(answer).scores == EXPECTED


def test_bare_dimensions_and_string_scores() -> None:
    answer = (
        '<final_evaluation>{"format": "5", "factuality": "4/5", "consistency": 3.4, '
        '"realism": 4, "quality": "2 (weak)"}</final_evaluation>'
    )
    assert parse_final_evaluation(answer).scores == EXPECTED


def test_out_of_range_scores_are_clamped() -> None:
    answer = (
        '<final_evaluation>{"scores": {"format": 9, "factuality": 0, "consistency": -3, '
        '"realism": 5, "quality": 1}}</final_evaluation>'
    )
    assert parse_final_evaluation(answer).scores == {
        "format": 5,
        "factuality": 1,
        "consistency": 1,
        "realism": 5,
        "quality": 1,
    }


def test_missing_dimensions_are_zero_not_invented() -> None:
    evaluation = parse_final_evaluation(
        '<final_evaluation>{"scores": {"format": 4}}</final_evaluation>'
    )
    assert evaluation.scores == {
        "format": 4,
        "factuality": 0,
        "consistency": 0,
        "realism": 0,
        "quality": 0,
    }


def test_broken_json_falls_back_to_the_scores_it_can_read() -> None:
    answer = (
        '<final_evaluation>{"strengths": ["unterminated, "scores": {"format": 4, '
        '"factuality": 3, "consistency": 2, "realism": 5, "quality": 4</final_evaluation>'
    )
    evaluation = parse_final_evaluation(answer)
    assert evaluation.repaired
    assert evaluation.scores == {
        "format": 4,
        "factuality": 3,
        "consistency": 2,
        "realism": 5,
        "quality": 4,
    }


def test_thinking_that_ran_out_of_budget_still_counts_its_block() -> None:
    answer = f"<think>long reasoning... <final_evaluation>{{{SCORES}}}</final_evaluation>"
    assert parse_final_evaluation(answer).scores == EXPECTED


@pytest.mark.parametrize(
    "answer",
    ["", "I think it is good.", "<final_evaluation></final_evaluation>", '{"scores": {}}', "{[}"],
)
def test_unusable_answers_raise(answer: str) -> None:
    with pytest.raises(JudgeParseError, match="final_evaluation"):
        parse_final_evaluation(answer)


@pytest.mark.parametrize(
    ("value", "expected"), [(True, 0), (None, 0), ("n/a", 0), (2.5, 2), (3.5, 4)]
)
def test_clamp_score(value: object, expected: int) -> None:
    assert clamp_score(value) == expected


@pytest.mark.parametrize(
    ("answer", "choice"),
    [
        (r"It is \boxed{A}.", "A"),
        (r"First \boxed{A}, on reflection \boxed{B}", "B"),
        (r"\boxed{\text{B}}", "B"),
        (r"<think>\boxed{B}</think> final: \boxed{A}", "A"),
    ],
)
def test_boxed_choice(answer: str, choice: str) -> None:
    assert parse_boxed_choice(answer) == choice


def test_no_boxed_choice_raises() -> None:
    with pytest.raises(JudgeParseError):
        parse_boxed_choice("A is real, I think")
