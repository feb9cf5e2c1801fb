"""What tree scoring computes, counted: the exact edit distance's cells, matchings per step.

A vector environment scores every sub-environment's step, so the tree metrics' work is the
environment layer's main cost (`benchmarks/bench_layer.py`). These tests pin the work, never a
time: the exact distance equals the `zss` package's on every bundled pair and on random trees,
and a prediction that repeats the previous state is parsed and matched once.
"""

from __future__ import annotations

import itertools
import random

import pytest
import zss

from backend.data.bundled import load_bundled
from backend.domains.base import get_domain
from backend.scoring import score_observation, tree_match
from backend.scoring.nodes import Node, Tree
from backend.scoring.parsers import parse_tree
from backend.scoring.tree_edit import (
    ZSS_MAX_COST,
    post_order,
    tree_edit_similarity,
    zhang_shasha,
    zss_cost,
    zss_distance,
)

TREE_DOMAINS = ("web", "os", "android")


def reference_distance(a: Tree, b: Tree) -> int:
    """The `zss` package's unit-cost distance with the metric's labels (node signatures)."""

    def relabel(x: Node, y: Node) -> int:
        return 0 if x.signature() == y.signature() else 1

    return int(zss.distance(a.root, b.root, lambda n: n.children, _one, _one, relabel))


def _one(_: Node) -> int:
    return 1


def bundled_pairs() -> list[tuple[Tree, Tree]]:
    """Consecutive observations of every bundled tree trajectory that the exact path scores."""
    pairs = []
    for trajectory in load_bundled():
        if trajectory.domain not in TREE_DOMAINS:
            continue
        kind = get_domain(trajectory.domain).observation_kind
        states = [trajectory.initial_state, *(turn.observation for turn in trajectory.turns)]
        texts = [text for text in states if text]
        for before, after in itertools.pairwise(texts):
            a, b = parse_tree(kind, before), parse_tree(kind, after)
            if zss_cost(a) * zss_cost(b) <= ZSS_MAX_COST:
                pairs.append((a, b))
    return pairs


def random_tree(rng: random.Random, size: int) -> Tree:
    """A random tree of `size` nodes over few labels (so relabels both match and differ)."""
    nodes = [Node(role=rng.choice("abc"), name=rng.choice("xy")) for _ in range(size)]
    for index, node in enumerate(nodes[1:], start=1):
        nodes[rng.randrange(index)].children.append(node)
    return Tree(root=nodes[0], fmt="test")


def test_exact_distance_equals_zss_on_every_bundled_pair() -> None:
    pairs = bundled_pairs()
    assert len(pairs) >= 20
    assert [zss_distance(a, b) for a, b in pairs] == [reference_distance(a, b) for a, b in pairs]


@pytest.mark.parametrize("seed", range(40))
def test_exact_distance_equals_zss_on_random_trees(seed: int) -> None:
    rng = random.Random(seed)
    a, b = random_tree(rng, rng.randint(1, 30)), random_tree(rng, rng.randint(1, 30))
    assert zss_distance(a, b) == reference_distance(a, b)


def test_cells_are_the_keyroot_subtree_products() -> None:
    """Zhang-Shasha fills |subtree(i)| x |subtree(j)| cells for each pair of keyroots."""
    rng = random.Random(7)
    a, b = random_tree(rng, 25), random_tree(rng, 18)
    codes: dict = {}
    left, right = post_order(a, codes), post_order(b, codes)
    expected = sum(
        (i - left.leftmost[i] + 1) * (j - right.leftmost[j] + 1)
        for i in left.keyroots
        for j in right.keyroots
    )
    assert zhang_shasha(left, right).cells == expected
    _, details = tree_edit_similarity(a, b)
    assert details["method"] == "zss" and details["cells"] == expected


def test_pairs_over_the_budget_compute_no_cells() -> None:
    a = Tree(root=Node("a", children=[Node("b", name=str(i)) for i in range(1_200)]), fmt="t")
    b = Tree(root=Node("a", children=[Node("b", name=str(i)) for i in range(1_199)]), fmt="t")
    _, details = tree_edit_similarity(a, b)
    assert details["method"] == "preorder_patience" and "cells" not in details


@pytest.mark.parametrize("domain", TREE_DOMAINS)
def test_a_repeat_of_the_previous_state_is_matched_once(domain, monkeypatch) -> None:
    """Node F1 and change F1 share the matching of the previous (= predicted) tree with the truth.

    Before, the three metrics matched (predicted, real), (previous, predicted) and (previous,
    real): three Hungarian matchings for one persistence step.
    """
    trajectory = next(t for t in load_bundled() if t.domain == domain and t.initial_state)
    previous, real = trajectory.initial_state, trajectory.turns[0].observation
    calls: list[int] = []
    matcher = tree_match.match_nodes

    def counted(a, b, min_similarity=0.0):
        calls.append(len(a) * len(b))
        return matcher(a, b, min_similarity)

    monkeypatch.setattr(tree_match, "match_nodes", counted)
    results = score_observation(domain, previous, real, previous)
    assert {r.name for r in results} >= {"node_f1", "change_f1", "tree_edit_similarity"}
    assert len(calls) == 1
    calls.clear()
    score_observation(domain, real, real, previous)  # the truth: (real, real), (previous, real)
    assert len(calls) == 2
    calls.clear()
    other = trajectory.turns[1].observation  # anything else: three distinct pairs
    score_observation(domain, other, real, previous)
    assert len(calls) == 3
