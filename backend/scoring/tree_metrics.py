"""Tree metrics (web, os, android): node F1, tree edit similarity and change F1."""

from __future__ import annotations

from typing import Any

from backend.scoring.base import ObservationPair, metric
from backend.scoring.nodes import Tree
from backend.scoring.tree_change import change_f1 as change_f1_of
from backend.scoring.tree_edit import tree_edit_similarity
from backend.scoring.tree_match import match_trees


def _shape(tree: Tree) -> dict[str, Any]:
    return {"format": tree.fmt, "truncated": tree.truncated}


def node_f1_of(predicted: Tree, reference: Tree) -> tuple[float, dict[str, Any]]:
    """Soft node F1: `2 * sum(similarity of matched pairs) / (n_predicted + n_reference)`."""
    pred, ref = predicted.nodes, reference.nodes
    if not pred and not ref:
        return 1.0, {"nodes_predicted": 0, "nodes_reference": 0}
    matching = match_trees(predicted, reference)
    total = matching.total
    return 2 * total / (len(pred) + len(ref)), {
        "precision": total / len(pred) if pred else 0.0,
        "recall": total / len(ref) if ref else 0.0,
        "nodes_predicted": len(pred),
        "nodes_reference": len(ref),
        "matched": len(matching.pairs),
        "identical": sum(1 for _, _, sim in matching.pairs if sim == 1.0),
        "methods": dict(matching.methods),
    }


@metric("node_f1", 1, "Soft F1 of one-to-one matched nodes (Hungarian per role).", symmetric=True)
def node_f1(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """Node F1 of the predicted tree against the real tree."""
    value, details = node_f1_of(pair.predicted_tree, pair.reference_tree)
    return value, {**details, "predicted": _shape(pair.predicted_tree)}


@metric("tree_edit_similarity", 1, "1 - normalised tree edit distance (zss; proxy when large).")
def tree_edit(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """Tree edit similarity of the predicted tree against the real tree."""
    return tree_edit_similarity(pair.predicted_tree, pair.reference_tree)


@metric("change_f1", 2, "Agreement of (previous -> predicted) with (previous -> real) changes.")
def change_f1(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """Change F1; an unknown previous state counts as empty (every node is an addition).

    A prediction that does not parse scores 0 outright. Version 1 read it as an empty tree,
    which removes every node and so matched the real removals; version 2's formula no longer
    pays for removals, but an empty tree would still equal an empty reference, and text that is
    not an observation of the format must never be anyone's best answer.
    """
    if pair.predicted_tree.fmt == "unparsable":
        return 0.0, {"unparsable": True, "predicted": _shape(pair.predicted_tree)}
    return change_f1_of(pair.previous_tree, pair.predicted_tree, pair.reference_tree)
