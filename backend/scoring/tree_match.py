"""One-to-one node matching between two trees: optimal where affordable, linear where not.

Nodes of different roles never match, so the similarity matrix is block-diagonal by role and the
Hungarian algorithm (`scipy.optimize.linear_sum_assignment`) runs per role block, which is exact.
A block larger than HUNGARIAN_MAX_CELLS first pairs identical nodes (same signature) in document
order; if the rest is still too large it falls back to a greedy pairing (same id, then same
name, then document order). Memory therefore never exceeds HUNGARIAN_MAX_CELLS floats per block,
whatever the tree size: 5,000-node trees are never quadratic.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from backend.scoring.nodes import Bounds, Node, Tree

HUNGARIAN_MAX_CELLS = 250_000
"""Largest role block solved exactly (500 x 500 float64 = 2 MB, tens of milliseconds)."""
SCALAR_MAX_CELLS = 64
"""Blocks up to this size get their similarities from `node_similarity` one pair at a time:
the vectorised matrix costs about half a millisecond of numpy calls whatever its size, and most
role blocks of a real page are a handful of nodes."""
W_NAME, W_ID, W_ATTRS, W_BOUNDS = 2.0, 1.0, 1.0, 1.0
"""Weights of the similarity components; the name is what a reader notices first."""


def iou(a: Bounds | None, b: Bounds | None) -> float:
    """Intersection over union of two boxes; equal boxes (even empty ones) score 1."""
    if a is None or b is None:
        return 0.0
    if a == b:
        return 1.0
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    inter = max(0, width) * max(0, height)
    union = _area(a) + _area(b) - inter
    return inter / union if union > 0 else 0.0


def _area(box: Bounds) -> int:
    return max(0, box[2] - box[0]) * max(0, box[3] - box[1])


def node_similarity(a: Node, b: Node) -> float:
    """Similarity in [0, 1]; 0 across roles.

    Otherwise a weighted mean of name equality, id equality, the share of equal attributes and
    box IoU, over the components either node has.

    `similarity_matrix` is the vectorised twin of this function (a test keeps them equal).
    """
    if a.role != b.role:
        return 0.0
    num, den = W_NAME * (a.name == b.name), W_NAME
    if a.node_id or b.node_id:
        num, den = num + W_ID * (a.node_id == b.node_id), den + W_ID
    keys = a.attrs.keys() | b.attrs.keys()
    if keys:
        equal = sum(a.attrs.get(key) == b.attrs.get(key) for key in keys)
        num, den = num + W_ATTRS * equal / len(keys), den + W_ATTRS
    if a.bounds is not None or b.bounds is not None:
        num, den = num + W_BOUNDS * iou(a.bounds, b.bounds), den + W_BOUNDS
    return num / den


def _codes(values: list[Hashable], table: dict[Hashable, int]) -> np.ndarray:
    return np.fromiter((table.setdefault(v, len(table)) for v in values), np.int64, len(values))


def _eq(left: list[Hashable], right: list[Hashable]) -> np.ndarray:
    table: dict[Hashable, int] = {}
    return _codes(left, table)[:, None] == _codes(right, table)[None, :]


def similarity_matrix(a: list[Node], b: list[Node]) -> np.ndarray:
    """`node_similarity` for every pair of `a` x `b`, computed with numpy broadcasting."""
    num = W_NAME * _eq([n.name for n in a], [n.name for n in b]).astype(float)
    den = np.full(num.shape, W_NAME)
    has_id = (
        np.array([bool(n.node_id) for n in a])[:, None]
        | np.array([bool(n.node_id) for n in b])[None, :]
    )
    num += W_ID * (_eq([n.node_id for n in a], [n.node_id for n in b]) & has_id)
    den += W_ID * has_id
    keys = sorted({k for n in a for k in n.attrs} | {k for n in b for k in n.attrs})
    equal, present = np.zeros(num.shape), np.zeros(num.shape)
    for key in keys:
        table: dict[Hashable, int] = {None: -1}
        ca = _codes([n.attrs.get(key) for n in a], table)
        cb = _codes([n.attrs.get(key) for n in b], table)
        either = (ca >= 0)[:, None] | (cb >= 0)[None, :]
        present += either
        equal += (ca[:, None] == cb[None, :]) & either
    has_attrs = present > 0
    num += W_ATTRS * np.divide(equal, present, out=np.zeros(num.shape), where=has_attrs)
    den += W_ATTRS * has_attrs
    num_b, den_b = _bounds_part(a, b)
    roles = _eq([n.role for n in a], [n.role for n in b])
    return np.where(roles, (num + num_b) / (den + den_b), 0.0)


def _bounds_part(a: list[Node], b: list[Node]) -> tuple[np.ndarray, np.ndarray]:
    """Weighted IoU numerator and denominator for every pair (0 where neither has bounds)."""
    box_a = np.array([n.bounds or (0, 0, 0, 0) for n in a], float).reshape(-1, 4)
    box_b = np.array([n.bounds or (0, 0, 0, 0) for n in b], float).reshape(-1, 4)
    has_a = np.array([n.bounds is not None for n in a])[:, None]
    has_b = np.array([n.bounds is not None for n in b])[None, :]
    width = np.minimum(box_a[:, None, 2], box_b[None, :, 2]) - np.maximum(
        box_a[:, None, 0], box_b[None, :, 0]
    )
    height = np.minimum(box_a[:, None, 3], box_b[None, :, 3]) - np.maximum(
        box_a[:, None, 1], box_b[None, :, 1]
    )
    inter = np.clip(width, 0, None) * np.clip(height, 0, None)
    area_a = np.clip(box_a[:, 2] - box_a[:, 0], 0, None) * np.clip(
        box_a[:, 3] - box_a[:, 1], 0, None
    )
    area_b = np.clip(box_b[:, 2] - box_b[:, 0], 0, None) * np.clip(
        box_b[:, 3] - box_b[:, 1], 0, None
    )
    union = area_a[:, None] + area_b[None, :] - inter
    value = np.divide(inter, union, out=np.zeros(inter.shape), where=union > 0)
    same = (box_a[:, None, :] == box_b[None, :, :]).all(axis=2)
    value = np.where(same, 1.0, value) * (has_a & has_b)
    return W_BOUNDS * value, W_BOUNDS * (has_a | has_b)


@dataclass
class Matching:
    """Matched pairs (index in a, index in b, similarity) and how they were found."""

    pairs: list[tuple[int, int, float]] = field(default_factory=list)
    methods: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    @property
    def total(self) -> float:
        """Sum of the similarities of all matched pairs."""
        return sum(sim for _, _, sim in self.pairs)


def match_trees(a: Tree, b: Tree, min_similarity: float = 0.0) -> Matching:
    """`match_nodes` of two trees' nodes, computed once per pair of trees.

    One prediction's metrics match the same trees more than once (node F1 matches the
    prediction with the truth, change F1 the previous state with each), and a prediction that
    repeats the previous state makes two of those pairs one: the matching is kept on `a`.
    """
    cached = a.matchings.get(id(b))
    if cached is None or cached[0] is not b:
        cached = (b, match_nodes(a.nodes, b.nodes))
        a.matchings[id(b)] = cached
    found: Matching = cached[1]
    if min_similarity <= 0.0:
        return found
    kept = [pair for pair in found.pairs if pair[2] > min_similarity]
    return Matching(kept, found.methods)


def match_nodes(a: list[Node], b: list[Node], min_similarity: float = 0.0) -> Matching:
    """Match nodes one to one, maximising total similarity.

    Pairs at or below `min_similarity` are dropped: they count as unmatched.
    """
    matching = Matching()
    roles_a, roles_b = defaultdict(list), defaultdict(list)
    for i, node in enumerate(a):
        roles_a[node.role].append(i)
    for j, node in enumerate(b):
        roles_b[node.role].append(j)
    for role in roles_a.keys() & roles_b.keys():
        left, right = roles_a[role], roles_b[role]
        if len(left) * len(right) > HUNGARIAN_MAX_CELLS:
            left, right = _pair_by(a, b, left, right, Node.signature, matching, "identical")
        if len(left) * len(right) <= HUNGARIAN_MAX_CELLS:
            _hungarian(a, b, left, right, matching)
        else:
            left, right = _pair_by(
                a, b, left, right, lambda n: n.node_id or None, matching, "greedy"
            )
            left, right = _pair_by(a, b, left, right, lambda n: n.name, matching, "greedy")
            _pair_in_order(a, b, left, right, matching)
    matching.pairs = [pair for pair in matching.pairs if pair[2] > min_similarity]
    return matching


def _hungarian(
    a: list[Node], b: list[Node], left: list[int], right: list[int], m: Matching
) -> None:
    if not left or not right:
        return
    if len(left) == len(right) == 1:
        m.pairs.append((left[0], right[0], node_similarity(a[left[0]], b[right[0]])))
        m.methods["hungarian"] += 1
        return
    if len(left) * len(right) <= SCALAR_MAX_CELLS:
        sim = np.array([[node_similarity(a[i], b[j]) for j in right] for i in left])
    else:
        sim = similarity_matrix([a[i] for i in left], [b[j] for j in right])
    rows, cols = linear_sum_assignment(sim, maximize=True)
    m.pairs.extend((left[r], right[c], float(sim[r, c])) for r, c in zip(rows, cols, strict=True))
    m.methods["hungarian"] += len(rows)


def _pair_by(
    a: list[Node],
    b: list[Node],
    left: list[int],
    right: list[int],
    key: Callable[[Node], Hashable],
    m: Matching,
    method: str,
) -> tuple[list[int], list[int]]:
    """Pair nodes with equal keys in document order; return what is left on each side."""
    waiting: dict[Hashable, deque[int]] = defaultdict(deque)
    for j in right:
        k = key(b[j])
        if k is not None:
            waiting[k].append(j)
    rest_left, used = [], set()
    for i in left:
        queue = waiting.get(key(a[i]))
        if queue:
            j = queue.popleft()
            used.add(j)
            # Equal signatures mean equal nodes: skip computing a similarity known to be 1.
            sim = 1.0 if method == "identical" else node_similarity(a[i], b[j])
            m.pairs.append((i, j, sim))
            m.methods[method] += 1
        else:
            rest_left.append(i)
    return rest_left, [j for j in right if j not in used]


def _pair_in_order(
    a: list[Node], b: list[Node], left: list[int], right: list[int], m: Matching
) -> None:
    for i, j in zip(left, right, strict=False):
        m.pairs.append((i, j, node_similarity(a[i], b[j])))
    m.methods["greedy"] += min(len(left), len(right))
