"""Hostile observations: XXE, billion laughs, 100 MB, 10,000 levels deep, random bytes.

Each must end in a clear BadInputError or a bounded tree, quickly, and never read a file.
"Quickly" is asserted as work counted, never as seconds: a refused text never reaches lxml, and
a deep page costs a bounded number of parser callbacks and nodes (see tests/README.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backend.errors import BadInputError
from backend.scoring import score_observation
from backend.scoring.nodes import MAX_CHARS, MAX_DEPTH, MAX_NODES
from backend.scoring.parsers import TREE_PARSERS, parse_tree, safe_xml
from backend.scoring.parsers import html as html_parser
from backend.scoring.parsers.android import parse_android_xml
from backend.scoring.parsers.html import parse_html_tree

SECRET_FILE_MARK = "root:"  # first field of /etc/passwd
XXE = (
    '<?xml version="1.0"?><!DOCTYPE hierarchy [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
    '<hierarchy><node class="x" text="&xxe;">&xxe;</node></hierarchy>'
)
LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol0 "lol">'
    + "".join(f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10))
    + ']><hierarchy><node class="x" text="&lol9;">&lol9;</node></hierarchy>'
)
EXTERNAL_DTD = '<!DOCTYPE hierarchy SYSTEM "http://127.0.0.1:9/evil.dtd"><hierarchy/>'


def counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """Wrap `owner.name` (still called) so that each call appends to the returned list."""
    real: Callable[..., Any] = getattr(owner, name)
    calls: list[int] = []

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)
    return calls


@pytest.mark.parametrize("text", [XXE, LAUGHS, EXTERNAL_DTD, XXE.replace("DOCTYPE", "doctype")])
def test_xml_with_a_dtd_is_refused_before_lxml_sees_it(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsers_built = counting(monkeypatch, safe_xml, "_xml_parser")
    with pytest.raises(BadInputError, match="DTD"):
        parse_android_xml(text)
    assert parsers_built == []  # refused by the text check: nothing was expanded or fetched
    parse_android_xml('<hierarchy><node class="x"/></hierarchy>')
    assert parsers_built == [1]  # the counter is live: a clean document does reach lxml


def test_hostile_prediction_scores_zero_and_reads_nothing() -> None:
    reference = (
        '<hierarchy rotation="0"><node class="a" text="ok" bounds="[0,0][1,1]"/></hierarchy>'
    )
    for hostile in (XXE, LAUGHS):
        results = score_observation("android", hostile, reference, reference)
        node_f1 = next(r for r in results if r.name == "node_f1")
        assert node_f1.value == 0.0
        assert "DTD" in node_f1.details["parse_errors"]["predicted"]
        assert SECRET_FILE_MARK not in json.dumps([r.model_dump() for r in results])


def test_hostile_reference_is_a_clear_error() -> None:
    with pytest.raises(BadInputError):
        score_observation("android", "<hierarchy/>", XXE)


def test_html_entities_never_resolve_files() -> None:
    html = (
        '<!DOCTYPE html [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
        "<html><body><p>&xxe;</p><img src='file:///etc/passwd'></body></html>"
    )
    names = " ".join(f.node.name for f in parse_html_tree(html).flatten())
    assert SECRET_FILE_MARK not in names


@pytest.mark.parametrize("kind", ["axtree", "html", "a11y_tree", "android_xml", "android_json"])
def test_100_mb_is_refused_before_parsing(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    huge = "<" + "a" * (100 * 1024 * 1024)
    lxml_calls = counting(monkeypatch, safe_xml.etree, "fromstring")
    with pytest.raises(BadInputError, match="limit"):
        parse_tree(kind, huge)
    assert lxml_calls == []  # refused on its length alone
    parse_tree(kind, "<a>small</a>")
    assert lxml_calls == [1]  # the counter is live: a small text of that kind is parsed


def test_100_mb_prediction_is_refused_by_score_observation() -> None:
    with pytest.raises(BadInputError, match="limit"):
        score_observation("terminal", "x" * (MAX_CHARS + 1), "x")


def test_10000_deep_xml_is_refused() -> None:
    deep = "<hierarchy>" + '<node class="n">' * 10_000 + "</node>" * 10_000 + "</hierarchy>"
    with pytest.raises(BadInputError, match="well-formed"):
        parse_android_xml(deep)


def test_10000_deep_html_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    builders: list[Any] = []

    class CountingBuilder(html_parser._NodeBuilder):
        """The real builder, counting the parser callbacks it receives."""

        def __init__(self) -> None:
            super().__init__()
            self.callbacks = 0
            builders.append(self)

        def start(self, tag: str, attrib: dict[str, str]) -> None:
            self.callbacks += 1
            super().start(tag, attrib)

        def end(self, tag: str) -> None:
            self.callbacks += 1
            super().end(tag)

        def data(self, data: str) -> None:
            self.callbacks += 1
            super().data(data)

    monkeypatch.setattr(html_parser, "_NodeBuilder", CountingBuilder)
    tags = 10_000
    deep = "<div>" * tags + "x" + "</div>" * tags
    tree = parse_html_tree(deep)
    [builder] = builders
    # Linear work: each tag opens and closes once (plus lxml's html/body wrapper and the text).
    assert 2 * tags <= builder.callbacks <= 2 * tags + 10
    assert tree.truncated and tree.size() <= MAX_DEPTH + 1  # nodes beyond the cap never built
    assert max(f.depth for f in tree.flatten()) <= MAX_DEPTH + 1


def test_deep_axtree_is_truncated_or_refused() -> None:
    def nested(levels: int) -> str:
        return "\n".join("\t" * level + f"[{level}] group 'g'" for level in range(levels))

    with pytest.raises(BadInputError, match="limit"):  # 10,000 levels of tabs are 50 MB
        parse_tree("axtree", nested(10_000))
    tree = parse_tree("axtree", nested(2_000))
    assert tree.truncated
    assert tree.size() == MAX_DEPTH


@pytest.mark.parametrize("kind", ["a11y_tree", "android_json"])
def test_10000_deep_json_is_a_clear_error(kind: str) -> None:
    deep = '{"Children": [' * 10_000 + "{}" + "]}" * 10_000
    with pytest.raises(BadInputError, match="deeply"):
        parse_tree(kind, deep)


def test_wide_json_is_capped_not_exhausting() -> None:
    views = [{"class": "v", "parent": -1}] * (MAX_NODES + 10)
    tree = TREE_PARSERS.get("android_json")(json.dumps(views))
    assert tree.truncated
    assert tree.size() == MAX_NODES


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(TREE_PARSERS.names()),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=400)
    | st.from_regex(r"\A<[a-z]{1,5}( [a-z]+=\"[^\"]*\")*>.{0,40}(</[a-z]{1,5}>)?\Z"),
)
def test_any_text_gives_a_tree_or_a_clear_error(fmt: str, text: str) -> None:
    try:
        tree = TREE_PARSERS.get(fmt)(text)
    except BadInputError:
        return
    assert tree.size() >= 0
