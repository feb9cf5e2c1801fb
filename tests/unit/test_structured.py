"""The correction editor's pretty form of JSON and XML observations, and the way back."""

from __future__ import annotations

from pathlib import Path

import pytest

from backend.data.bundled import load_bundled
from backend.data.recorded.android import decode_dump
from backend.domains.base import get_domain
from backend.errors import BadInputError
from backend.types import ObservationKind
from ui.structured import Form, form_of, pretty, stored

STRUCTURED_DOMAINS = ("mcp", "os", "android")


def bundled_observations() -> list[tuple[str, str]]:
    return [
        (trajectory.domain, turn.observation)
        for trajectory in load_bundled()
        if trajectory.domain in STRUCTURED_DOMAINS
        for turn in trajectory.turns
        if turn.observation
    ]


def kind(domain: str) -> ObservationKind:
    return get_domain(domain).observation_kind


def test_every_bundled_structured_observation_comes_back_exactly() -> None:
    observations = bundled_observations()
    shown = 0
    for domain, text in observations:
        form = form_of(text, kind(domain))
        if form is None:
            continue
        shown += 1
        edited = pretty(text, form)
        assert "\n" in edited, domain  # one line became many
        assert stored(edited, form) == text, domain
    # Nearly all of them are documents: MCP errors are plain text, edited as they are.
    assert shown >= len(observations) - 5 and shown > 40


def test_recorded_android_dumps_come_back_exactly(recorded_root: Path) -> None:
    dumps = sorted((recorded_root / "android").glob("*.xml"))
    shown = 0
    for path in dumps:
        text = decode_dump(path.read_bytes())  # as the importer reads it
        form = form_of(text, ObservationKind.ANDROID_XML)
        if form is None:  # already indented by whoever dumped it: edited as it is
            assert "\n" in text.strip(), path.name
            continue
        shown += 1
        edited = pretty(text, form)
        assert edited.count("\n") > 10, path.name
        assert stored(edited, form) == text, path.name
    assert shown >= len(dumps) - 3


def test_an_edit_is_stored_compact_with_the_recordings_separators() -> None:
    text = '{"b":[1,2],"a":{"x":"é"}}'
    form = form_of(text, ObservationKind.JSON)
    assert form == Form("json", (",", ":"), ensure_ascii=False)
    assert stored(pretty(text, form), form) == text
    compact = '{"b": [1, 2], "a": {"x": "\\u00e9"}}'
    form = form_of(compact, ObservationKind.JSON)
    assert form == Form("json", (", ", ": "), True)
    edited = pretty(compact, form).replace("2", "3")
    assert edited.startswith('{\n  "b": [\n    1,')
    assert stored(edited, form) == '{"b": [1, 3], "a": {"x": "\\u00e9"}}'


def test_xml_text_and_quoted_brackets_survive() -> None:
    text = '<?xml version="1.0"?><a x="1 > 0"><b>hi there</b><c/><d> </d></a>\n'
    form = form_of(text, ObservationKind.ANDROID_XML)
    assert form is not None
    edited = pretty(text, form)
    assert edited.splitlines() == [
        '<?xml version="1.0"?>',
        '<a x="1 > 0">',
        "  <b>hi there</b>",
        "  <c/>",
        "  <d> </d>",
        "</a>",
    ]
    assert stored(edited, form) == text
    added = edited.replace("  <c/>", '  <c/>\n  <e text="new"/>')
    assert stored(added, form) == text.replace("<c/>", '<c/><e text="new"/>')


def test_a_broken_edit_is_refused_with_its_line_and_column() -> None:
    text = '{"a": 1, "b": 2}'
    form = form_of(text, ObservationKind.JSON)
    broken = pretty(text, form).replace('"b"', "b")
    with pytest.raises(BadInputError, match=r"no longer valid JSON: line 3, column 3"):
        stored(broken, form)
    xml = "<a><b/></a>"
    xml_form = form_of(xml, ObservationKind.ANDROID_XML)
    with pytest.raises(BadInputError, match=r"no longer well-formed XML.*line 3"):
        stored(pretty(xml, xml_form).replace("</a>", "</z>"), xml_form)


def test_plain_text_stays_as_typed() -> None:
    form = form_of('{"a": 1}', ObservationKind.JSON)
    assert stored("Error: user not found", form) == "Error: user not found"
    assert form_of("Error: user not found", ObservationKind.JSON) is None
    assert form_of('{"a": 1}', ObservationKind.SCREEN) is None  # a terminal's text is text
    assert form_of('{"a":  1}', ObservationKind.JSON) is None  # would not come back exactly
    assert form_of("<a>\n  <b/>\n</a>", ObservationKind.ANDROID_XML) is None  # already indented
    assert pretty("anything", None) == "anything" and stored("x", None) == "x"
