"""Change sets between two states of a tree, and change F1.

Scoring the predicted state against the real one rewards copying: most of a page survives an
action, so a copy of the previous page already gets a high node F1. Change F1 compares what the
prediction CHANGED with what really changed (after RLVR-World's measure for web pages): nodes
added, removed and updated between the previous state and each new state. A copy of the previous
state changes nothing and scores 0 whenever the real state changed; when neither changed, both
change sets are empty and the score is 1.

Version 2 stops paying for removals. Version 1 was the F1 of the two change sets, removals
included, so an empty or unparsable tree (which "removes" every node) matched every real removal:
when a window closed, a one-sentence answer scored 0.88 on a desktop step. Now, as in
`delta.delta_similarity`, removals on which both sides agree earn nothing (any output that is not
a copy removes things), removals on which they disagree cost, and the additions and updates are
compared with `base.change_agreement`, which charges the wrong ones against the right ones. A
step whose only real change is removals therefore scores 1 for exactly those removals and 0
otherwise: nothing else there tells a prediction from a deletion.
"""

from __future__ import annotations

from collections import Counter
from itertools import islice
from typing import Any

from backend.scoring.base import change_agreement
from backend.scoring.nodes import Node, Signature, Tree
from backend.scoring.tree_match import match_trees

CHANGE_MIN_SIMILARITY = 0.3
"""Matched pairs at or below this similarity are unrelated nodes: a removal plus an addition,
not an update. A node that keeps its role and id but not its name (similarity 1/3) is the same
node updated; one that keeps only its role and some attributes is not."""

Change = tuple[Any, ...]


def _matched(before: Tree, after: Tree) -> list[tuple[int, int]]:
    """Pairs (index in before, index in after) of the same node in both states; the rest changed.

    Equal node sequences pair in order: a maximal matching pairs every node with an equal one
    (similarity 1 means an equal signature), so whichever it picks, nothing changed.
    """
    if before is after or before.signatures == after.signatures:
        return [(i, i) for i in range(len(after.nodes))]
    return [(i, j) for i, j, _ in match_trees(before, after, CHANGE_MIN_SIMILARITY).pairs]


def changes(before: Tree | None, after: Tree) -> Counter[Change]:
    """The multiset of changes from `before` to `after`.

    An update is keyed by the old and the new signature, so a prediction earns it only by
    turning the same node into the same new state; `before=None` (unknown previous state) makes
    every node of `after` an addition.
    """
    new = after.nodes
    if before is None:
        return Counter(("added", node.signature()) for node in new)
    old = before.nodes
    pairs = _matched(before, after)
    found: Counter[Change] = Counter()
    for i, j in pairs:
        if old[i].signature() != new[j].signature():
            found[("updated", old[i].signature(), new[j].signature())] += 1
    matched_old, matched_new = {i for i, _ in pairs}, {j for _, j in pairs}
    found.update(("removed", n.signature()) for i, n in enumerate(old) if i not in matched_old)
    found.update(("added", n.signature()) for j, n in enumerate(new) if j not in matched_new)
    return found


def node_statuses(before: Tree, after: Tree) -> tuple[list[str], int]:
    """Each node of `after.nodes` as "added", "updated" or "", and how many nodes were removed.

    The same matching as `changes`, per node instead of per signature, so a view that marks
    changed nodes marks exactly the changes change F1 counts.
    """
    old, new = before.nodes, after.nodes
    pairs = _matched(before, after)
    statuses = ["added"] * len(new)
    for i, j in pairs:
        statuses[j] = "" if old[i].signature() == new[j].signature() else "updated"
    return statuses, len(old) - len(pairs)


def _by_kind(found: Counter[Change]) -> dict[str, int]:
    kinds: Counter[str] = Counter()
    for change, count in found.items():
        kinds[change[0]] += count
    return dict(kinds)


def _label(signature: Signature) -> str:
    role, name, node_id, _, _ = signature
    return Node(role=role, name=name, node_id=node_id).label()


def _describe(change: Change) -> str:
    """`updated [18] checkbox 'SQkB' (checked, focused)`: what a person reads in a report."""
    kind, *signatures = change
    text = f"{kind} {_label(signatures[0])}"
    if kind == "updated":
        old, new = signatures
        old_attrs, new_attrs = dict(old[3]), dict(new[3])
        fields = ["name"] if old[1] != new[1] else []
        fields += sorted(
            k for k in old_attrs.keys() | new_attrs.keys() if old_attrs.get(k) != new_attrs.get(k)
        )
        fields += ["bounds"] if old[4] != new[4] else []
        text += f" ({', '.join(fields)})"
    return text


def _split(found: Counter[Change]) -> tuple[Counter[Change], Counter[Change]]:
    """(additions and updates, removals) of a change set."""
    removed = Counter({c: n for c, n in found.items() if c[0] == "removed"})
    return found - removed, removed


def change_f1(
    previous: Tree | None, predicted: Tree, reference: Tree
) -> tuple[float, dict[str, Any]]:
    """Agreement of the predicted change set with the real one (module docstring).

    Returns:
        (value, details: all changes per side, the new (added or updated) ones per side and
        matched, the removals per side and their disagreement, counts per kind, and up to ten
        missed and spurious changes).
    """
    predicted_changes = changes(previous, predicted)
    real_changes = changes(previous, reference)
    pred_new, pred_removed = _split(predicted_changes)
    real_new, real_removed = _split(real_changes)
    common = pred_new & real_new
    n_pred, n_real, n_common = (sum(c.values()) for c in (pred_new, real_new, common))
    disagreement = sum(((pred_removed - real_removed) + (real_removed - pred_removed)).values())
    missed = (real_new - common) + (real_removed - pred_removed)
    spurious = (pred_new - common) + (pred_removed - real_removed)
    return change_agreement(n_common, n_pred, n_real, disagreement), {
        "changes_predicted": sum(predicted_changes.values()),
        "changes_real": sum(real_changes.values()),
        "new_predicted": n_pred,
        "new_real": n_real,
        "new_matched": n_common,
        "removals_predicted": sum(pred_removed.values()),
        "removals_real": sum(real_removed.values()),
        "removal_disagreement": disagreement,
        "real_by_kind": _by_kind(real_changes),
        "missed": [_describe(c) for c in islice(missed.elements(), 10)],
        "spurious": [_describe(c) for c in islice(spurious.elements(), 10)],
        "previous_known": previous is not None,
    }
