"""The official output rules of backend.parsing, one rule per test."""

from __future__ import annotations

import pytest

from backend.parsing import (
    BLOCK_CLOSE,
    BLOCK_OPEN,
    MARKER,
    parse_output,
    strip_marker,
    strip_thinking,
    whole_completion,
)


def block(text: str) -> str:
    return f"{BLOCK_OPEN}\n{text}\n{BLOCK_CLOSE}"


# --- thinking -------------------------------------------------------------------------------


def test_closed_think_is_removed_and_kept_as_reasoning() -> None:
    parsed = parse_output("<think>the shell prints 55</think>\n" + block("55"))
    assert parsed.observation == "55"
    assert parsed.reasoning == "the shell prints 55"


def test_several_think_blocks_are_all_removed() -> None:
    raw = "<think>one</think>" + block("a") + "<think>two</think>"
    cleaned, reasoning = strip_thinking(raw)
    assert "<think>" not in cleaned and "one" not in cleaned and "two" not in cleaned
    assert reasoning == "one\n\ntwo"
    assert parse_output(raw).observation == "a"


def test_nested_think_is_removed_as_a_whole() -> None:
    raw = "<think>outer <think>inner</think> still thinking</think>" + block("obs")
    cleaned, reasoning = strip_thinking(raw)
    assert cleaned == block("obs")
    assert "inner" in reasoning and "still thinking" in reasoning
    assert "<think>" not in reasoning and "</think>" not in reasoning
    assert parse_output(raw).observation == "obs"


def test_block_inside_closed_think_is_not_the_answer() -> None:
    raw = f"<think>draft {block('fake')}</think>\n{block('real')}"
    assert parse_output(raw).observation == "real"


def test_unclosed_think_is_cut_at_the_first_block() -> None:
    raw = "<think>ran out of budget, still musing " + block("the screen")
    parsed = parse_output(raw)
    assert parsed.observation == "the screen"
    assert parsed.reasoning == "ran out of budget, still musing"


def test_unclosed_think_without_block_yields_an_empty_observation() -> None:
    parsed = parse_output("<think>never finished thinking about the answer")
    assert parsed.observation == ""
    assert parsed.diagnostics.empty_extraction
    assert parsed.reasoning == "never finished thinking about the answer"


def test_unclosed_nested_think_is_cut_at_the_first_block() -> None:
    raw = "<think>a <think>b</think> c " + block("x")
    cleaned, reasoning = strip_thinking(raw)
    assert cleaned == block("x")
    assert reasoning.split() == ["a", "b", "c"]


def test_orphan_close_makes_everything_before_it_reasoning() -> None:
    # A chat template that opened <think> in the prompt leaves only the closing tag.
    parsed = parse_output("I should print the listing\n</think>\n" + block("file.txt"))
    assert parsed.observation == "file.txt"
    assert parsed.reasoning == "I should print the listing"


def test_orphan_close_followed_by_another_think_block() -> None:
    cleaned, reasoning = strip_thinking("first</think>kept<think>second</think>")
    assert cleaned == "kept"
    assert reasoning == "first\n\nsecond"


def test_text_without_thinking_is_unchanged() -> None:
    assert strip_thinking("plain output") == ("plain output", "")


# --- the block --------------------------------------------------------------------------------


def test_last_block_wins() -> None:
    raw = block("first try") + "\nwait, correcting:\n" + block("second try")
    assert parse_output(raw).observation == "second try"


def test_missing_closing_tag_is_tolerated() -> None:
    parsed = parse_output(f"{BLOCK_OPEN}\nopen ended output\n")
    assert parsed.observation == "open ended output"
    assert parsed.diagnostics.open_tags == 1
    assert parsed.diagnostics.close_tags == 0


def test_last_block_without_close_after_closed_ones() -> None:
    raw = block("old") + f"{BLOCK_OPEN}new, cut off"
    assert parse_output(raw).observation == "new, cut off"


def test_whole_cleaned_text_is_the_fallback() -> None:
    parsed = parse_output("<think>hm</think>\n  just the output, no tags  \n")
    assert parsed.observation == "just the output, no tags"
    assert parsed.diagnostics.chars_outside_block == 0


def test_empty_completion() -> None:
    parsed = parse_output("")
    assert parsed.observation == ""
    assert parsed.reasoning == ""
    assert parsed.diagnostics.empty_extraction
    assert parsed.diagnostics.extracted_length == 0


# --- the marker -------------------------------------------------------------------------------


def test_marker_is_stripped_inside_the_block() -> None:
    parsed = parse_output(block(f"{MARKER}\nroot@host:/app# ls\nfile.txt"))
    assert parsed.observation == "root@host:/app# ls\nfile.txt"


def test_marker_is_stripped_in_the_fallback() -> None:
    assert parse_output(f"{MARKER}\n{{'ok': true}}").observation == "{'ok': true}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"{MARKER}\nx", "x"),
        (f"  {MARKER}  \n\n x \n", "x"),
        ("no marker", "no marker"),
        (MARKER, ""),
    ],
)
def test_strip_marker(text: str, expected: str) -> None:
    assert strip_marker(text) == expected


def test_inner_whitespace_of_the_observation_is_kept() -> None:
    screen = "line 1\n\n    indented line\nlast"
    assert parse_output(block(screen)).observation == screen


# --- diagnostics ------------------------------------------------------------------------------


def test_diagnostics_count_tags_and_text_outside_the_block() -> None:
    raw = "Here it is: " + block("a") + block("b") + " done"
    diagnostics = parse_output(raw).diagnostics
    assert diagnostics.open_tags == 2
    assert diagnostics.close_tags == 2
    # Everything but the last block: the prefix, the first block and the suffix.
    outside = "Here it is: " + block("a") + " done"
    assert diagnostics.chars_outside_block == len(outside)
    assert diagnostics.extracted_length == 1
    assert not diagnostics.empty_extraction


def test_thinking_is_not_counted_as_text_outside_the_block() -> None:
    raw = "<think>" + "long reasoning " * 50 + "</think>\n" + block("x") + "\n"
    assert parse_output(raw).diagnostics.chars_outside_block == 0


def test_speculative_words_are_counted_in_the_observation_only() -> None:
    raw = "<think>it would probably print</think>" + block("This would likely fail. Perhaps.")
    assert parse_output(raw).diagnostics.speculative_words == 3


def test_speculative_words_need_whole_words() -> None:
    raw = block("wouldnt couldron likelihood")
    assert parse_output(raw).diagnostics.speculative_words == 0


def test_empty_block_is_an_empty_extraction() -> None:
    diagnostics = parse_output(block(f"{MARKER}\n   ")).diagnostics
    assert diagnostics.empty_extraction
    assert diagnostics.extracted_length == 0


# --- reasoning passed separately ----------------------------------------------------------------


def test_separate_reasoning_comes_first() -> None:
    parsed = parse_output("<think>late thought</think>" + block("x"), reasoning="  early  ")
    assert parsed.reasoning == "early\n\nlate thought"
    assert parsed.observation == "x"


def test_separate_reasoning_alone() -> None:
    parsed = parse_output(block("x"), reasoning="from reasoning_content")
    assert parsed.reasoning == "from reasoning_content"
    assert parsed.observation == "x"


def test_blank_separate_reasoning_is_dropped() -> None:
    assert parse_output(block("x"), reasoning=" \n ").reasoning == ""


def test_literal_close_think_inside_the_block_is_content() -> None:
    screen = "$ cat chat.html\n<p>answer</think></p>"
    assert parse_output(block(screen)).observation == screen


# --- what a reasoning parser split (vLLM, SGLang `--reasoning-parser qwen3`) --------------------


def test_a_completion_that_never_closes_think_is_not_empty() -> None:
    """vLLM's qwen3 parser sends a completion without `</think>` whole as reasoning, no content.

    Before, the observation was read from the empty content: every prediction of a model that
    does not think came out empty.
    """
    parsed = parse_output("", reasoning="user@host:~$ ls\nnotes.txt\nuser@host:~$")
    assert parsed.observation == "user@host:~$ ls\nnotes.txt\nuser@host:~$"
    assert parsed.reasoning == "" and not parsed.diagnostics.empty_extraction


def test_a_block_inside_unclosed_thinking_is_the_observation() -> None:
    parsed = parse_output("", reasoning="I think the page shows\n" + block("[1] button 'OK'"))
    assert parsed.observation == "[1] button 'OK'"


def test_split_thinking_and_answer_read_as_one_completion() -> None:
    parsed = parse_output("\n" + block("55"), reasoning="the shell prints 55\n")
    assert parsed.observation == "55" and parsed.reasoning == "the shell prints 55"
    assert whole_completion("\n" + block("55"), "x") == "<think>x</think>\n" + block("55")
    assert whole_completion("answer", "  ") == "answer"
