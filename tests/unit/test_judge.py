"""The rubric judge around a scripted engine (the outer boundary).

The scripted engine answers from a queue, so retries, failures, caps and the stored judge
metadata can be checked exactly; the real-server run is in tests/integration.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from backend.domains.base import ActionKind, all_domains
from backend.errors import EngineUnavailableError, UnknownNameError
from backend.scoring.judge import Judge, JudgeItem, render_user_message
from backend.scoring.judge_library import JudgePromptLibrary
from backend.types import ChatRequest, Completion, Diagnostics, SamplingParams, StreamChunk, Turn

SCORES = '{"format": 5, "factuality": 4, "consistency": 4, "realism": 5, "quality": 4}'
GOOD = f'<final_evaluation>{{"scores": {SCORES}}}</final_evaluation>'
PAGE = "RootWebArea 'Form'\n\t[2] checkbox 'Agree', checked='false'"


class ScriptedEngine:
    """Answers each request with the next scripted text; records what it was asked."""

    name = "scripted"
    model = "scripted-judge"

    def __init__(self, answers: list[str | Exception]) -> None:
        self.answers = list(answers)
        self.requests: list[ChatRequest] = []

    def generate(self, requests: Sequence[ChatRequest]) -> list[Completion]:
        self.requests.extend(requests)
        out = []
        for _ in requests:
            answer = self.answers.pop(0)
            if isinstance(answer, Exception):
                raise answer
            out.append(Completion(text=answer, engine=self.name, model=self.model))
        return out

    def stream(self, request: ChatRequest) -> Iterator[StreamChunk]:
        raise NotImplementedError

    def close(self) -> None:
        """Nothing to release."""


def item(**overrides: object) -> JudgeItem:
    fields = {
        "domain": "terminal",
        "action": '[{"keystrokes": "ls\\n"}]',
        "predicted": "a.txt",
        "reference": "a.txt",
    }
    return JudgeItem.model_validate({**fields, **overrides})


def test_scores_are_normalised_and_the_judge_is_recorded() -> None:
    engine = ScriptedEngine([GOOD])
    params = SamplingParams(temperature=0.0, max_new_tokens=64)
    result = Judge(engine, params=params).evaluate([item()])[0]
    assert result.total == pytest.approx(4.4)
    assert result.score_100 == pytest.approx((4.4 - 1) / 4 * 100)
    assert (result.judge_engine, result.judge_model, result.temperature) == (
        "scripted",
        "scripted-judge",
        0.0,
    )
    assert result.prompt_version == "terminal-v1+rubric-v1"
    assert not result.failed and result.attempts == 1


def test_unparsable_answer_is_retried_with_the_reason() -> None:
    engine = ScriptedEngine(["Looks fine to me.", GOOD])
    result = Judge(engine, retries=2).evaluate([item()])[0]
    assert result.attempts == 2 and not result.failed
    retry = engine.requests[1].messages
    assert retry[-2].content == "Looks fine to me."
    assert "final_evaluation" in retry[-1].content


def test_failures_are_counted_not_dropped() -> None:
    engine = ScriptedEngine(["nope", GOOD, "still nope"])
    results = Judge(engine, retries=1).evaluate([item(), item()])
    failed = [r for r in results if r.failed]
    assert len(failed) == 1
    assert failed[0].total is None and failed[0].score_100 is None
    assert failed[0].scores == dict.fromkeys(failed[0].scores, 0)
    assert "final_evaluation" in (failed[0].error or "")


def test_engine_errors_become_failed_results() -> None:
    engine = ScriptedEngine([EngineUnavailableError("server down")])
    result = Judge(engine, retries=0).evaluate([item()])[0]
    assert result.failed and "server down" in (result.error or "")


def test_stale_copy_caps_for_visual_domains() -> None:
    engine = ScriptedEngine([GOOD, GOOD])
    real = PAGE.replace("false", "true")
    stale = item(domain="web", predicted=PAGE, reference=real, previous=PAGE)
    capped, plain = Judge(engine).evaluate(
        [stale, item(predicted=PAGE, reference=real, previous=PAGE)]
    )
    assert (capped.scores["factuality"], capped.scores["quality"], capped.scores["realism"]) == (
        2,
        2,
        3,
    )
    assert len(capped.caps_applied) == 2
    assert plain.scores["factuality"] == 4 and plain.caps_applied == []


def test_user_message_holds_history_diagnostics_and_both_observations() -> None:
    diagnostics = Diagnostics(
        open_tags=2,
        close_tags=1,
        speculative_words=3,
        chars_outside_block=10,
        extracted_length=5,
        empty_extraction=False,
    )
    history = [Turn(action=f"cmd {i}", observation="x" * 100) for i in range(50)]
    text = render_user_message(
        item(history=history, diagnostics=diagnostics), max_history_chars=1_000
    )
    assert "open_tags: 2" in text and "speculative_words: 3" in text
    assert "<simulated_observation>\na.txt" in text and "<real_observation>" in text
    assert "### Turn 50" in text and "### Turn 1\n" not in text
    assert "earlier turn(s) omitted" in text
    assert "## Current action (turn 51)" in text


def test_every_domain_has_a_prompt_and_caps_where_the_card_says() -> None:
    library = JudgePromptLibrary()
    for domain in all_domains():
        prompt = library.get(domain.name)
        assert "<final_evaluation>" in prompt.text
        assert prompt.caps == (domain.action_kind is ActionKind.UI)  # web, os, android
    assert "10-20%" in library.get("mcp").text
    with pytest.raises(UnknownNameError, match="Available"):
        library.get("chess")


def test_override_directory_replaces_a_prompt(tmp_path: Path) -> None:
    (tmp_path / "swe.md").write_text("---\nversion: 7\n---\nOur own SWE rules.", encoding="utf-8")
    prompt = JudgePromptLibrary(tmp_path).get("swe")
    assert prompt.version == "swe-v7+rubric-v1"
    assert prompt.text.endswith("Our own SWE rules.")
