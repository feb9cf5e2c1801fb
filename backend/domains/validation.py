"""Shared action checks: size and emptiness, JSON and Python parsing with located errors, fields.

The seven domain validators differ in grammar but should fail alike: one BadActionError whose
message names the position or the field that is wrong, so a person can fix the action box.
"""

from __future__ import annotations

import ast
import difflib
import json
import math
import re
import textwrap
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

from backend.domains.base import MAX_ACTION_CHARS
from backend.errors import BadActionError

_FENCE = re.compile(r"\A```[\w+-]*\n(.*?)\n?```\Z", re.DOTALL)
_CLOSERS = {"[": "]", "{": "}"}
_JSON_NAMES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),  # before int: bool is an int subclass in Python
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
    (type(None), "null"),
)


def clean_action(action: str, example: str) -> str:
    """Return the action without a surrounding code fence, common indentation or outer blanks.

    People paste actions copied from transcripts, fence and all; accepting those saves a round trip.

    Args:
        action: the text typed or imported.
        example: a valid action of the domain, quoted when the action is empty.

    Raises:
        BadActionError: the action is not text, is empty or only whitespace, or is too long.
    """
    if not isinstance(action, str):
        raise BadActionError(f"The action must be text, not {type(action).__name__}.")
    if len(action) > MAX_ACTION_CHARS:
        raise BadActionError(
            f"The action is {len(action):,} characters long; the limit is {MAX_ACTION_CHARS:,}."
        )
    fenced = _FENCE.match(action.strip())
    text = textwrap.dedent(fenced.group(1) if fenced else action).strip()
    if not text:
        what = "only whitespace" if action else "empty"
        raise BadActionError(f"The action is {what}. Type one, for example: {example}")
    return text


def where(text: str, index: int) -> str:
    """Describe a character offset as a 1-based line and column, as editors show them."""
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return f"line {line}, column {column}"


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number; use a finite number")


def parse_json(text: str, what: str = "The action") -> Any:
    """Decode JSON, explaining where it breaks and which quote or bracket is unbalanced.

    Raises:
        BadActionError: the text is not JSON, nests too deeply or holds NaN/Infinity.
    """
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        message = exc.msg.removesuffix(" at")  # "Unterminated string starting at"
        hint = balance_hint(text)
        raise BadActionError(
            f"{what} is not valid JSON: {message} at {where(text, exc.pos)}.{hint}"
        ) from None
    except RecursionError:
        raise BadActionError(f"{what} nests brackets too deeply to read.") from None
    except ValueError as exc:  # NaN/Infinity, integers too long to convert
        raise BadActionError(f"{what} is not usable JSON: {exc}.") from None


def balance_hint(text: str) -> str:
    """Find the first unbalanced double quote or bracket; JSON's own error often points past it."""
    stack: list[tuple[str, int]] = []
    string_start = -1
    escaped = False
    for index, char in enumerate(text):
        if string_start >= 0:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                string_start = -1
        elif char == '"':
            string_start = index
        elif char in _CLOSERS:
            stack.append((char, index))
        elif char in "]}":
            if not stack:
                return f" {char!r} at {where(text, index)} closes nothing."
            opener, start = stack.pop()
            if _CLOSERS[opener] != char:
                return (
                    f" {char!r} at {where(text, index)} does not match {opener!r} opened at "
                    f"{where(text, start)}."
                )
    if string_start >= 0:
        return f" The string opened at {where(text, string_start)} is never closed."
    if stack:
        opener, start = stack[-1]
        return f" {opener!r} opened at {where(text, start)} is never closed."
    return ""


def parse_python(text: str, what: str = "The action") -> ast.Module:
    """Parse Python source, reporting a syntax error's line and column.

    Raises:
        BadActionError: the text is not valid Python.
    """
    try:
        return ast.parse(text)
    except SyntaxError as exc:
        place = f" at line {exc.lineno}, column {exc.offset}" if exc.lineno else ""
        raise BadActionError(f"{what} is not valid Python: {exc.msg}{place}.") from None
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
        raise BadActionError(f"{what} cannot be parsed as Python: {exc}.") from None


def json_type(value: Any) -> str:
    """Name a decoded value's JSON type, for messages ("not array")."""
    if isinstance(value, float) and not math.isfinite(value):
        return "non-finite number"
    for cls, name in _JSON_NAMES:
        if isinstance(value, cls):
            return name
    return type(value).__name__


def is_json_type(value: Any, expected: str) -> bool:
    """Check a decoded value against a JSON Schema primitive type name.

    Integers count as numbers and integral floats as integers, as JSON Schema says; booleans are
    never numbers. Type names this check does not know pass, so odd schemas never block an action.
    """
    actual = json_type(value)
    if expected == "number":
        return actual == "integer" or (actual == "number" and math.isfinite(value))
    if expected == "integer":
        return actual == "integer" or (actual == "number" and float(value).is_integer())
    if expected in {name for _, name in _JSON_NAMES}:
        return actual == expected
    return True


def expect_type(value: Any, expected: str, what: str) -> None:
    """Raise a BadActionError naming `what` unless `value` has JSON type `expected`."""
    if not is_json_type(value, expected):
        raise BadActionError(f"{what} must be a JSON {expected}, not {json_type(value)}.")


def expect_object(value: Any, what: str) -> dict[str, Any]:
    """Return `value` as a JSON object, or raise a BadActionError naming `what`."""
    expect_type(value, "object", what)
    return dict(value)


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """Suggest the closest valid name as a sentence to append to an error ('' if none is close)."""
    close = difflib.get_close_matches(name, list(choices), n=1)
    return f" Did you mean {close[0]!r}?" if close else ""


def quoted(names: Iterable[str], limit: int = 20) -> str:
    """Join names as quoted text, eliding long lists (MCP servers can expose hundreds of tools)."""
    items = sorted(names)
    shown = ", ".join(repr(name) for name in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def check_keys(
    obj: Mapping[str, Any], required: Iterable[str], allowed: Iterable[str], what: str
) -> None:
    """Refuse keys outside `allowed` (with a suggestion), then missing required keys.

    Unknown keys come first: a misspelt key is also a missing one, and the suggestion fixes both.

    Raises:
        BadActionError: an unknown key is present or a required key is missing.
    """
    valid = set(allowed)
    for key in obj:
        if key not in valid:
            hint = did_you_mean(key, valid)
            raise BadActionError(f"{what}: unknown field {key!r}.{hint} Allowed: {quoted(valid)}.")
    missing = [key for key in required if key not in obj]
    if missing:
        raise BadActionError(f"{what}: missing {quoted(missing)}.")


def canonical_json(value: Any, indent: int | None = None) -> str:
    """Serialise an action the one way the turn text shows it (non-ASCII kept readable)."""
    return json.dumps(value, ensure_ascii=False, indent=indent)
