"""Tree metrics: node matching, node F1, tree edit similarity and change F1, small and at scale."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backend.scoring import tree_match
from backend.scoring.nodes import Node, Tree
from backend.scoring.parsers import parse_tree
from backend.scoring.tree_change import change_f1, changes, node_statuses
from backend.scoring.tree_edit import tree_edit_similarity
from backend.scoring.tree_match import (
    HUNGARIAN_MAX_CELLS,
    match_nodes,
    node_similarity,
    similarity_matrix,
)
from backend.scoring.tree_metrics import node_f1_of

PAGE = (
    "RootWebArea 'Form'\n\t[1] textbox 'Name', value=''\n"
    "\t[2] checkbox 'Agree', checked='false'\n\t[3] button 'Send'"
)


def ax(text: str) -> Tree:
    return parse_tree("axtree", text)


nodes = st.builds(
    Node,
    role=st.sampled_from(["button", "text", "link"]),
    name=st.sampled_from(["", "a", "b"]),
    attrs=st.dictionaries(
        st.sampled_from(["x", "y", "z"]), st.sampled_from(["0", "1"]), max_size=3
    ),
    bounds=st.none() | st.tuples(*(st.integers(0, 20),) * 4),
    node_id=st.sampled_from(["", "1", "2"]),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(nodes, min_size=1, max_size=6), st.lists(nodes, min_size=1, max_size=6))
def test_vectorised_similarity_equals_the_scalar_one(a: list[Node], b: list[Node]) -> None:
    expected = np.array([[node_similarity(x, y) for y in b] for x in a])
    assert np.allclose(similarity_matrix(a, b), expected)


def test_node_f1_counts_partial_credit() -> None:
    after = PAGE.replace("checked='false'", "checked='true'")
    value, details = node_f1_of(ax(after), ax(PAGE))
    # The checkbox keeps name and id, loses its one attribute: (2 + 1 + 0) / 4 = 0.75.
    assert details["identical"] == 3
    assert value == (3 + 0.75) * 2 / 8


def test_node_f1_of_disjoint_and_empty_trees() -> None:
    assert node_f1_of(ax("[9] link 'x'"), ax(PAGE))[0] == 0.0
    assert node_f1_of(ax(""), ax(""))[0] == 1.0
    assert node_f1_of(ax(""), ax(PAGE))[0] == 0.0


def test_exact_edit_distance_on_small_trees() -> None:
    value, details = tree_edit_similarity(ax(PAGE.replace("'Send'", "'Submit'")), ax(PAGE))
    assert (details["method"], details["distance"]) == ("zss", 1)
    assert value == 1 - 1 / 10
    _, details = tree_edit_similarity(ax(PAGE.rsplit("\n", 1)[0]), ax(PAGE))
    assert details["distance"] == 1


def big_page(n: int, changed: int = 0) -> str:
    lines = ["RootWebArea 'Big'"]
    for i in range(n - 1):
        name = f"row {i}" if i >= changed else f"edited {i}"
        lines.append(
            f"\t[{i}] StaticText '{name}'" if i % 5 else f"\t[{i}] link '{name}', url='/{i}'"
        )
    return "\n".join(lines)


def test_5000_nodes_are_matched_without_quadratic_work_or_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    n = 5_000
    predicted, reference = ax(big_page(n, changed=400)), ax(big_page(n))
    real_matrix = tree_match.similarity_matrix
    blocks: list[int] = []  # cells of each similarity matrix computed (the quadratic work)

    def counted_matrix(a: list[Node], b: list[Node]) -> np.ndarray:
        blocks.append(len(a) * len(b))
        return real_matrix(a, b)

    monkeypatch.setattr(tree_match, "similarity_matrix", counted_matrix)
    tracemalloc.start()
    value, details = node_f1_of(predicted, reference)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # A dense 4,000 x 4,000 StaticText block would take 128 MB; the cap keeps blocks tiny.
    assert peak < 8 * HUNGARIAN_MAX_CELLS * 8
    # Work, not seconds: no block beyond the cap reaches the Hungarian solver, and all blocks
    # together are a small fraction of the n x n cells a naive matcher would score.
    assert blocks and max(blocks) <= HUNGARIAN_MAX_CELLS
    assert sum(blocks) < n * n // 50
    assert details["methods"]["identical"] > 4_000
    assert 0.9 < value < 1.0


def test_large_trees_use_the_documented_edit_fallback() -> None:
    value, details = tree_edit_similarity(ax(big_page(2_000, changed=100)), ax(big_page(2_000)))
    assert details["method"] == "preorder_patience"
    assert value == 2 * (2_001 - 100) / (2 * 2_001)


def test_change_f1_rewards_the_real_change_only() -> None:
    before = ax(PAGE)
    real = ax(PAGE.replace("checked='false'", "checked='true'"))
    assert change_f1(before, before, real)[0] == 0.0  # persistence: a copy of the old page
    assert change_f1(before, real, real)[0] == 1.0  # oracle
    assert change_f1(before, before, before)[0] == 1.0  # nothing changed, nothing predicted
    wrong = ax(PAGE.replace("'Send'", "'Sent'"))
    value, details = change_f1(before, wrong, real)
    assert value == 0.0
    assert details["missed"] == ["updated [2] checkbox 'Agree' (checked)"]
    assert details["spurious"] == ["updated [3] button 'Send' (name)"]


DIALOG = "\n".join(f"\t[d{i}] StaticText 'line {i} of the dialog'" for i in range(20))


def test_removals_earn_nothing_so_an_empty_tree_cannot_match_a_closed_window() -> None:
    before = ax(f"{PAGE}\n\t[9] dialog 'Terms'\n{DIALOG}")
    filled = PAGE.replace("''", "'Ann'")
    real = ax(filled)  # the dialog closed, one field got its value
    empty, details = change_f1(before, ax(""), real)
    assert empty == 0.0  # version 1: 2 * 21 / (25 + 22) = 0.89
    assert details["removal_disagreement"] == 4  # it also dropped the form reality kept
    right_removals_only, _ = change_f1(before, ax(PAGE), real)
    assert right_removals_only == 0.0  # a copy minus the dialog: no added or updated node right
    assert change_f1(before, real, real)[0] == 1.0
    dialog_left_open, _ = change_f1(before, ax(f"{filled}\n\t[9] dialog 'Terms'\n{DIALOG}"), real)
    assert dialog_left_open == 0.0  # the value is right, but 21 stale nodes outweigh it


def test_a_step_that_only_removes_is_all_or_nothing() -> None:
    before = ax(f"{PAGE}\n\t[9] dialog 'Terms'")
    assert change_f1(before, ax(PAGE), ax(PAGE))[0] == 1.0
    assert change_f1(before, ax(PAGE.replace("\t[3] button 'Send'", "")), ax(PAGE))[0] == 0.0


def test_wrong_changes_are_charged_against_right_ones() -> None:
    before = ax(PAGE)
    real = ax(PAGE.replace("checked='false'", "checked='true'").replace("''", "'Ann'"))
    half = ax(PAGE.replace("checked='false'", "checked='true'"))
    half_and_wrong = ax(PAGE.replace("checked='false'", "checked='true'").replace("''", "'Bob'"))
    assert change_f1(before, half, real)[0] == pytest.approx(2 * 1 / (1 + 2))  # missed: diluted
    assert change_f1(before, half_and_wrong, real)[0] == pytest.approx((2 * 1 - 1) / (2 + 2))


def test_change_sets_of_added_removed_updated_nodes() -> None:
    before = ax(PAGE)
    after = ax(
        PAGE.replace("\t[3] button 'Send'", "\t[4] StaticText 'Thanks'").replace("''", "'Ann'")
    )
    kinds = sorted(change[0] for change in changes(before, after).elements())
    assert kinds == ["added", "removed", "updated"]
    statuses, removed = node_statuses(before, after)  # the per-node view the UI highlights
    assert sorted([s for s in statuses if s] + ["removed"] * removed) == kinds


def test_unknown_previous_state_makes_everything_an_addition() -> None:
    value, details = change_f1(None, ax(PAGE), ax(PAGE))
    assert value == 1.0
    assert details["changes_real"] == 4
    assert not details["previous_known"]


def test_matching_drops_pairs_below_the_threshold() -> None:
    a = [Node(role="button", name="x", attrs={"k": "1"})]
    b = [Node(role="button", name="y", attrs={"k": "2"})]
    assert match_nodes(a, b).pairs == []
    assert len(match_nodes(a, [Node(role="button", name="x")]).pairs) == 1
