"""Structured truth parses: what is an observation of a structured domain, and where it breaks."""

from __future__ import annotations

import pytest

from backend.data.bundled import load_bundled
from backend.observations import (
    STRUCTURED_DOMAINS,
    MalformedObservationError,
    check_observation,
    empty_form,
    observation_problem,
)

CALL = '{"reservation_id": "JG7FMM", "status": "confirmed"}'


def test_every_bundled_observation_parses() -> None:
    checked = [
        (t.domain, turn.observation)
        for t in load_bundled()
        for turn in t.turns
        if turn.observation and t.domain in STRUCTURED_DOMAINS
    ]
    assert len(checked) > 40
    assert [(d, text[:40]) for d, text in checked if observation_problem(d, text)] == []


@pytest.mark.parametrize(
    ("domain", "text", "where", "words"),
    [
        ("mcp", "x" + CALL, (1, 1), "'x' before the document, which starts at line 1, column 2"),
        ("mcp", "{{}}", (1, 2), "not valid JSON"),
        ("mcp", '{\n  "a": 1,\n}', (3, 1), "not valid JSON"),
        ("mcp", "  \n", (1, 1), "empty"),
        ("search", "a{}", (1, 1), "'a' before the document"),
        ("os", 'x{"Name": "Taskbar", "ControlType": "PaneControl"}', (1, 1), "before the document"),
        ("os", "To open Settings, click Start.", (1, 1), "not an OSWorld accessibility table"),
        ("android", "<hierarchy><node></hierarchy>", (1, 30), "not well-formed XML"),
        ("web", "The page now shows a dialog.", (1, 1), "not accessibility-tree text"),
    ],
    ids=[
        "stray",
        "braces",
        "trailing-comma",
        "empty",
        "search",
        "os-stray",
        "os-prose",
        "xml",
        "web",
    ],
)
def test_a_broken_document_is_refused_where_it_breaks(
    domain: str, text: str, where: tuple[int, int], words: str
) -> None:
    problem = observation_problem(domain, text)
    assert problem is not None and (problem.line, problem.column) == where
    assert words in problem.reason
    with pytest.raises(MalformedObservationError, match=f"line {where[0]}, column {where[1]}"):
        check_observation(domain, text, "The correction")


@pytest.mark.parametrize(
    ("domain", "text"),
    [
        ("mcp", CALL),
        ("mcp", "Transfer successful"),  # tau-bench tools answer in plain text
        ("mcp", "Error: missing field [name]"),
        ("mcp", "255.0"),
        ("search", "[1] https://example.com\nTitle: Example\nSnippet: ..."),
        ("web", "RootWebArea 'Form', focused\n\t[12] button 'Submit'"),
        ("terminal", "x{{}}"),  # text domains take any text
    ],
)
def test_real_forms_of_each_domain_parse(domain: str, text: str) -> None:
    assert observation_problem(domain, text) is None


def test_an_empty_prediction_is_corrected_from_the_domains_empty_document() -> None:
    assert empty_form("mcp") == "{}" and empty_form("terminal") == ""
    for domain in ("mcp", "os", "android", "web"):
        assert empty_form(domain) and observation_problem(domain, empty_form(domain)) is None
