"""Structured observations (JSON, XML) pretty for the correction editor, and back as stored.

OS, Android and MCP observations are one line of up to tens of kilobytes; nobody can correct
that by hand. The editor shows them indented, and a submitted correction is turned back into the
exact form the domain stores (compact JSON with the recording's separators, XML without the added
indentation), so a correction that changes nothing equals the original byte for byte.

A text is only shown pretty when turning the pretty text back gives the original exactly
(`form_of` checks it); anything else (model junk, an error message, a hand-indented document) is
edited as it is.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from backend.errors import BadInputError
from backend.scoring.parsers.safe_xml import parse_xml
from backend.types import ObservationKind

STRUCTURED_KINDS = frozenset(
    {
        ObservationKind.JSON,
        ObservationKind.A11Y_TREE,
        ObservationKind.ANDROID_XML,
        ObservationKind.ANDROID_JSON,
    }
)
"""Observation kinds whose texts are JSON or XML documents (MCP, OS, Android)."""
INDENT = "  "
_JSON_SEPARATORS = ((", ", ": "), (",", ":"))
_XML_TOKEN = re.compile(
    r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>|<(?:[^>\"']|\"[^\"]*\"|'[^']*')*>", re.DOTALL
)
"""A comment, a CDATA section, a processing instruction or a tag (quoted `>` included)."""


class MalformedCorrectionError(BadInputError):
    """An edited document no longer parses (shown beside the editor; nothing is saved)."""


@dataclass(frozen=True)
class Form:
    """How a structured observation is written where it is stored.

    Attributes:
        syntax: `json` or `xml`.
        separators: JSON item and key separators (`json.dumps` form).
        ensure_ascii: JSON escapes non-ASCII characters (`json.dumps` form).
        tail: the whitespace after the document (a dump's final line break).
    """

    syntax: Literal["json", "xml"]
    separators: tuple[str, str] = (", ", ": ")
    ensure_ascii: bool = True
    tail: str = ""

    @property
    def language(self) -> Literal["json", "html"]:
        """The editor's highlighting (the code editor highlights XML as markup)."""
        return "json" if self.syntax == "json" else "html"


def form_of(text: str, kind: ObservationKind) -> Form | None:
    """The form `text` is stored in, when the editor can show it pretty and give it back exactly.

    Returns:
        The form, or None: not a structured kind, not a document, or one whose pretty text would
        not turn back into `text` byte for byte.
    """
    if kind not in STRUCTURED_KINDS:
        return None
    body = text.rstrip()
    tail = text[len(body) :]
    if body.startswith(("{", "[")):
        return _json_form(body, tail)
    if body.startswith("<") and _xml_compact(body) == body:
        form = Form("xml", tail=tail)
        try:
            parse_xml(body)
        except BadInputError:
            return None
        return form if stored(pretty(text, form), form) == text else None
    return None


def _json_form(body: str, tail: str) -> Form | None:
    try:
        value = json.loads(body)
    except ValueError:
        return None
    for separators in _JSON_SEPARATORS:
        for ensure_ascii in (True, False):
            dumped = json.dumps(value, separators=separators, ensure_ascii=ensure_ascii)
            if dumped == body:
                return Form("json", separators, ensure_ascii, tail)
    return None


def pretty(text: str, form: Form | None) -> str:
    """`text` as the editor shows it: indented when it has a form, else unchanged."""
    if form is None:
        return text
    if form.syntax == "json":
        value = json.loads(text)
        return json.dumps(value, indent=len(INDENT), ensure_ascii=form.ensure_ascii)
    return _xml_pretty(text.rstrip())


def stored(edited: str, form: Form | None) -> str:
    """The edited text in the stored form (unchanged without a form or when it is not a document).

    An edit that replaced the document with other text is kept as typed; one that still opens
    like a document must parse. Whether the text is an observation of its domain at all (a
    stray character before `{` is not) is judged when it is stored (`backend.observations`).

    Raises:
        MalformedCorrectionError: the text starts like a document of the form's syntax but
            does not parse; the message names the line and column in the editor.
    """
    if form is None:
        return edited
    text = edited.strip()
    if form.syntax == "json":
        if not text.startswith(("{", "[")):
            return edited
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise MalformedCorrectionError(
                f"The correction is no longer valid JSON: line {exc.lineno}, column {exc.colno}: "
                f"{exc.msg}. Fix it, or reset it."
            ) from None
        dumped = json.dumps(value, separators=form.separators, ensure_ascii=form.ensure_ascii)
        return dumped + form.tail
    if not text.startswith("<"):
        return edited
    try:
        parse_xml(text)
    except BadInputError as exc:
        reason = str(exc).removeprefix("The XML observation is not well-formed XML: ")
        raise MalformedCorrectionError(
            f"The correction is no longer well-formed XML: {reason}. Fix it, or reset it."
        ) from None
    return _xml_compact(text) + form.tail


def _xml_pieces(text: str) -> list[tuple[bool, str]]:
    """`text` as (is a tag, piece) in order: markup tokens and the text between them."""
    pieces: list[tuple[bool, str]] = []
    at = 0
    for match in _XML_TOKEN.finditer(text):
        if match.start() > at:
            pieces.append((False, text[at : match.start()]))
        pieces.append((True, match.group()))
        at = match.end()
    if at < len(text):
        pieces.append((False, text[at:]))
    return pieces


def _xml_pretty(text: str) -> str:
    """Each tag that directly follows another on a line of its own, indented by its depth."""
    out: list[str] = []
    depth = 0
    after_tag = False
    for is_tag, piece in _xml_pieces(text):
        if not is_tag:
            out.append(piece)
            after_tag = False
            continue
        closing = piece.startswith("</")
        opening = not closing and not piece.endswith("/>") and not piece.startswith(("<?", "<!"))
        if closing:
            depth = max(0, depth - 1)
        if after_tag:
            out.append("\n" + INDENT * depth)
        out.append(piece)
        depth += opening
        after_tag = True
    return "".join(out)


def _xml_compact(text: str) -> str:
    """Drop the line breaks and indentation between tags (what `_xml_pretty` added)."""
    return "".join(
        piece for is_tag, piece in _xml_pieces(text) if is_tag or piece.strip() or "\n" not in piece
    )
