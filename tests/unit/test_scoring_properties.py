"""Properties of every metric (hypothesis): bounds, identity, claimed symmetry, monotonicity."""

from __future__ import annotations

import json
from typing import Any
from xml.sax.saxutils import quoteattr

from hypothesis import given, settings
from hypothesis import strategies as st

from backend.domains.base import all_domains
from backend.scoring import score_observation
from backend.scoring.base import METRICS
from backend.scoring.score import metric_set

DOMAINS = tuple(domain.name for domain in all_domains())  # one generator each, below
FAST = settings(max_examples=40, deadline=None)

words = st.text(alphabet="abcdefgh", min_size=1, max_size=6)
lines = st.lists(st.text(alphabet="abcdefgh 0123456789:/.", max_size=20), max_size=12)
text_obs = lines.map("\n".join)
json_obs = st.recursive(
    st.none() | st.booleans() | st.integers(-50, 50) | st.floats(-10, 10, allow_nan=False) | words,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3),
    max_leaves=12,
).map(json.dumps)
search_obs = st.lists(st.tuples(words, words), max_size=6).map(
    lambda results: "\n\n".join(
        f"[{i}] https://{host}.com/{i}\nTitle: {title}\nSnippet: s"
        for i, (host, title) in enumerate(results, 1)
    )
)


@st.composite
def trees(draw: st.DrawFn) -> list[tuple[int, str, str, bool]]:
    """Pre-order (depth, role, name, checked) rows of a random tree."""
    rows, depth = [], 0
    for _ in range(draw(st.integers(1, 10))):
        depth = draw(st.integers(0, depth + 1)) if rows else 0
        rows.append(
            (
                depth,
                draw(st.sampled_from(["button", "text", "link"])),
                draw(words),
                draw(st.booleans()),
            )
        )
    return rows


def axtree_text(rows: list[tuple[int, str, str, bool]]) -> str:
    return "\n".join(
        "\t" * d + f"[{i}] {role} '{name}', checked='{str(c).lower()}'"
        for i, (d, role, name, c) in enumerate(rows)
    )


def uia_json(rows: list[tuple[int, str, str, bool]]) -> str:
    root: dict[str, Any] = {"Name": "", "ControlType": "Pane", "Children": []}
    stack = [(-1, root)]
    for d, role, name, checked in rows:
        node = {"Name": name, "ControlType": role, "Toggle": checked, "Children": []}
        while stack[-1][0] >= d:
            stack.pop()
        stack[-1][1]["Children"].append(node)
        stack.append((d, node))
    return json.dumps(root)


def android_xml(rows: list[tuple[int, str, str, bool]]) -> str:
    out, open_depths = ["<hierarchy rotation='0'>"], []
    for d, role, name, checked in rows:
        while open_depths and open_depths[-1] >= d:
            open_depths.pop()
            out.append("</node>")
        out.append(
            f"<node class={quoteattr(role)} text={quoteattr(name)} "
            f"checked='{str(checked).lower()}'>"
        )
        open_depths.append(d)
    out.extend("</node>" for _ in open_depths)
    return "".join([*out, "</hierarchy>"])


OBSERVATIONS = {
    "terminal": text_obs,
    "swe": text_obs,
    "mcp": json_obs | text_obs,
    "search": search_obs,
    "web": trees().map(axtree_text),
    "os": trees().map(uia_json),
    "android": trees().map(android_xml),
}


def triples(domain: str) -> st.SearchStrategy[tuple[str, str, str, str | None]]:
    obs = OBSERVATIONS[domain]
    return st.tuples(st.just(domain), obs, obs, st.none() | obs)


any_triple = st.one_of(*(triples(domain) for domain in DOMAINS))


@FAST
@given(any_triple)
def test_every_value_is_in_bounds(case: tuple[str, str, str, str | None]) -> None:
    domain, predicted, reference, previous = case
    for result in score_observation(domain, predicted, reference, previous):
        assert 0.0 <= result.value <= 1.0, result


@FAST
@given(any_triple)
def test_identity_scores_one_everywhere(case: tuple[str, str, str, str | None]) -> None:
    domain, _, reference, previous = case
    for result in score_observation(domain, reference, reference, previous):
        assert result.value == 1.0, result


@FAST
@given(any_triple)
def test_metrics_that_claim_symmetry_are_symmetric(case: tuple[str, str, str, str | None]) -> None:
    domain, a, b, previous = case
    forward = {r.name: r.value for r in score_observation(domain, a, b, previous)}
    backward = {r.name: r.value for r in score_observation(domain, b, a, previous)}
    for name in metric_set(domain).metrics:
        if METRICS.get(name).symmetric:
            assert abs(forward[name] - backward[name]) < 1e-9, name


def corrupt(line: str) -> str:
    """Same length, an alphabet the originals never use: shares no line and no character."""
    return "Z" * max(1, len(line))


@FAST
@given(
    st.lists(
        st.text(alphabet="abcdefgh ", min_size=1, max_size=15), min_size=2, max_size=10, unique=True
    )
)
def test_more_corrupted_lines_never_score_higher(originals: list[str]) -> None:
    reference = "\n".join(originals)
    for domain in ("terminal", "swe"):
        previous_values: dict[str, float] = {}
        for k in range(len(originals) + 1):
            predicted = "\n".join([corrupt(line) for line in originals[:k]] + originals[k:])
            for result in score_observation(domain, predicted, reference):
                if result.name in previous_values:
                    assert result.value <= previous_values[result.name] + 1e-12, (result, k)
                previous_values[result.name] = result.value


@FAST
@given(trees(), st.sampled_from(["web", "os", "android"]))
def test_more_renamed_nodes_never_score_higher(
    rows: list[tuple[int, str, str, bool]], domain: str
) -> None:
    render = {"web": axtree_text, "os": uia_json, "android": android_xml}[domain]
    reference = render(rows)
    last: dict[str, float] = {}
    for k in range(len(rows) + 1):
        renamed = [
            (d, role, f"Q{i}" if i < k else name, c) for i, (d, role, name, c) in enumerate(rows)
        ]
        for result in score_observation(domain, render(renamed), reference):
            if result.name in ("node_f1", "tree_edit_similarity"):
                assert result.value <= last.get(result.name, 1.0) + 1e-12, (result, k)
                last[result.name] = result.value


@FAST
@given(st.dictionaries(words, st.integers(0, 100), min_size=1, max_size=8))
def test_more_wrong_json_values_never_score_higher(record: dict[str, int]) -> None:
    reference = json.dumps(record)
    last = 1.0
    for k in range(len(record) + 1):
        wrong = {
            key: (value + 1000 if i < k else value) for i, (key, value) in enumerate(record.items())
        }
        value = next(
            r.value
            for r in score_observation("mcp", json.dumps(wrong), reference)
            if r.name == "json_kv_f1"
        )
        assert value <= last
        last = value
    assert last == 0.0
