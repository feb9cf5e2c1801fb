"""Does a text parse as its domain's observation? Structured truth must, before it is stored.

In the structured domains (mcp, search, web, os, android) an observation is a document: JSON,
XML, an accessibility tree, a results list. A correction that no longer parses (one stray
character before `{`, a doubled brace) would become the real state and then training data, so
it is refused with the line and column where it breaks. There is no "plain text" way round it:
a text that looks like a document (it opens or closes like one) must be one. What the domain's
real environments do return as plain text stays allowed: an MCP tool's plain result
("Transfer successful", "Error: ..."), a search page's result blocks or Markdown.

Each family is judged by the parser scoring already uses for it (`backend.scoring.parsers`),
so a correction that is stored is one the metrics can read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from backend.domains.base import get_domain
from backend.errors import BadInputError
from backend.scoring.parsers import FAMILIES, detect_format, parse_tree
from backend.scoring.parsers.shape import looks_like_tree
from backend.types import ObservationKind

STRUCTURED_DOMAINS = frozenset({"mcp", "search", "web", "os", "android"})
"""Domains whose observations are documents that must parse."""
_EMPTY_FORMS = {
    ObservationKind.JSON: "{}",
    ObservationKind.A11Y_TREE: "{}",
    ObservationKind.ANDROID_XML: '<hierarchy rotation="0"></hierarchy>',
    ObservationKind.ANDROID_JSON: "[]",
    ObservationKind.AXTREE: "RootWebArea ''",
}
"""What an empty prediction is edited from: the smallest document of the kind's usual form."""
_NUMBERED = re.compile(r"\[\s*\d+\s*\]\s+\S")
_WHERE = re.compile(r"line (\d+),? column (\d+)")
_LINE_FORMATS = {
    "axtree": "accessibility-tree text (most lines `[bid] role 'name'`)",
    "osworld_table": "an OSWorld accessibility table (most lines tab-separated)",
}
STRAY_CHARS = 2
"""At most this many characters before a document's opening are a stray typo, not a message."""


@dataclass(frozen=True)
class SyntaxProblem:
    """Where and why a text does not parse (1-based line and column, as editors count)."""

    line: int
    column: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: {self.reason}"


class MalformedObservationError(BadInputError):
    """A text is not an observation of its structured domain (nothing is stored).

    Attributes:
        problem: where it breaks.
    """

    def __init__(self, message: str, problem: SyntaxProblem) -> None:
        super().__init__(message)
        self.problem = problem


def is_structured(domain: str) -> bool:
    """Whether the domain's observations are documents that must parse."""
    return domain in STRUCTURED_DOMAINS


def empty_form(domain: str) -> str:
    """The text an empty prediction of `domain` is corrected from ("" for text domains)."""
    if not is_structured(domain):
        return ""
    return _EMPTY_FORMS.get(get_domain(domain).observation_kind, "")


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _first_content(text: str) -> int:
    return len(text) - len(text.lstrip())


def _json_problem(text: str) -> SyntaxProblem | None:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return SyntaxProblem(exc.lineno, exc.colno, f"not valid JSON ({exc.msg})")
    except RecursionError:
        return SyntaxProblem(1, 1, "JSON nested too deeply")
    return None


def _stray_text(text: str, openers: str, parses: Callable[[str], bool]) -> SyntaxProblem | None:
    """A document with something before it: a stray character, or text before a valid one.

    A plain text that merely mentions a bracket ("Error: missing field [name]") is not one.
    """
    found = [i for i in (text.find(c) for c in openers) if i >= 0]
    if not found:
        return None
    start = min(found)
    prefix = text[:start].strip()
    if not prefix:
        return None
    rest = text[start:]
    closes = text.rstrip().endswith(("}", "]", ">"))
    if not (len(prefix) <= STRAY_CHARS and closes) and not parses(rest):
        return None
    line, column = _position(text, _first_content(text))
    start_line, start_column = _position(text, start)
    return SyntaxProblem(
        line,
        column,
        f"{prefix!r} before the document, which starts at line {start_line}, column "
        f"{start_column}: remove it",
    )


def _json_text_problem(text: str) -> SyntaxProblem | None:
    """JSON where it opens like JSON, else plain text that is no broken document.

    A numbered result line (`[1] https://...`, how search results are listed) opens a text.
    """
    body = text.lstrip()
    if body.startswith("{") or (body.startswith("[") and not _NUMBERED.match(body)):
        return _json_problem(text)
    return _stray_text(text, "{[", lambda rest: _json_problem(rest) is None)


def _parses_as_tree(kind: ObservationKind, text: str) -> bool:
    if detect_format(kind, text) == FAMILIES.get(kind).text:
        return False
    try:
        parse_tree(kind, text)
    except BadInputError:
        return False
    return True


def _parser_problem(exc: BadInputError) -> SyntaxProblem:
    """A parser's refusal, at the line and column its message names (libxml2's and JSON's)."""
    reason = str(exc).rstrip(".")
    found = _WHERE.search(reason)
    line, column = (int(found.group(1)), int(found.group(2))) if found else (1, 1)
    return SyntaxProblem(line, column, reason)


def _tree_problem(kind: ObservationKind, text: str) -> SyntaxProblem | None:
    family = FAMILIES.get(kind)
    shape = detect_format(kind, text)
    if shape == family.json and (problem := _json_problem(text)) is not None:
        return problem
    if shape == family.text:
        stray = _stray_text(text, "<{", lambda rest: _parses_as_tree(kind, rest))
        if stray is not None:
            return stray
    try:
        parse_tree(kind, text)
    except BadInputError as exc:
        return _parser_problem(exc)
    if not looks_like_tree(kind, text):
        return SyntaxProblem(1, 1, f"not {_LINE_FORMATS[shape]}")
    return None


def observation_problem(domain: str, text: str) -> SyntaxProblem | None:
    """Where `text` fails to parse as an observation of `domain`; None when it parses.

    Text domains (terminal, swe) take any text.
    """
    if not is_structured(domain):
        return None
    if not text.strip():
        return SyntaxProblem(1, 1, "empty; write the observation's document")
    kind = get_domain(domain).observation_kind
    if kind in FAMILIES:
        return _tree_problem(kind, text)
    return _json_text_problem(text)


def check_observation(domain: str, text: str, what: str = "The observation") -> None:
    """Refuse a text that is not an observation of its structured domain.

    Args:
        domain: the domain name.
        text: the observation.
        what: how the message names the text ("The correction").

    Raises:
        MalformedObservationError: it does not parse; the message names the line and column.
    """
    problem = observation_problem(domain, text)
    if problem is not None:
        title = get_domain(domain).title
        raise MalformedObservationError(
            f"{what} is not a valid {title} observation: {problem}. Fix it, or reset it.",
            problem,
        )
