"""One node model for every structured observation, so tree metrics are written once.

Accessibility trees, HTML, desktop UIA trees and Android layouts all become a tree of `Node`s:
role (tag, control type, class), name (label or text), the attributes that carry state, screen
bounds where the format has them, and a stable id where the format has one (a BrowserGym bid, an
Android resource-id). Parsers share the limits below so that a hostile observation yields a clear
error or a bounded tree, never a hang.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from backend.errors import BadInputError

MAX_CHARS = 10_000_000
"""Largest observation a parser accepts (a 2 MB page is fine; a 100 MB one is refused)."""
MAX_DEPTH = 512
"""Deeper nodes are dropped and the tree is marked truncated."""
MAX_NODES = 200_000
"""Nodes past this count are dropped and the tree is marked truncated."""
ROOT_ROLE = "#root"
"""Role of the synthetic root that holds formats with several top-level nodes."""

Bounds = tuple[int, int, int, int]
Signature = tuple[str, str, str, tuple[tuple[str, str], ...], Bounds | None]


@dataclass(slots=True, eq=False)
class Node:
    """One element of a structured observation.

    Attributes:
        role: tag, accessibility role, control type or widget class.
        name: the visible label or text (whitespace collapsed).
        attrs: state-bearing attributes (checked, focused, value, href ...), strings only.
        bounds: (left, top, right, bottom) in pixels where the format records them.
        node_id: a format-level id (bid, resource-id, element id); "" when absent.
        children: child nodes in document order.
    """

    role: str
    name: str = ""
    attrs: dict[str, str] = field(default_factory=dict)
    bounds: Bounds | None = None
    node_id: str = ""
    children: list[Node] = field(default_factory=list)
    _signature: Signature | None = field(default=None, init=False, repr=False)

    def signature(self) -> Signature:
        """Everything that identifies this node's own state (not its children's).

        Computed once: parsers finish a node's own fields when they create it, and metrics ask
        for signatures of every node several times.
        """
        if self._signature is None:
            attrs = tuple(sorted(self.attrs.items()))
            self._signature = (self.role, self.name, self.node_id, attrs, self.bounds)
        return self._signature

    def label(self) -> str:
        """A compact text label, used by tree edit distance and change reports."""
        ident = f"[{self.node_id}] " if self.node_id else ""
        return f"{ident}{self.role} {self.name!r}".rstrip()


@dataclass(slots=True)
class FlatNode:
    """A node in pre-order with its depth, for metrics that need lists."""

    node: Node
    depth: int


@dataclass(eq=False)
class Tree:
    """A parsed observation.

    Attributes:
        root: the top node (a synthetic `#root` when the format has several top-level nodes).
        fmt: the parser that produced it (axtree, html, uia_json, osworld_table, ...).
        truncated: nodes were dropped because of MAX_DEPTH or MAX_NODES.
    """

    root: Node
    fmt: str
    truncated: bool = False
    matchings: dict[int, Any] = field(default_factory=dict, repr=False)
    """Node matchings against other trees, by the other tree's id (`tree_match.match_trees`)."""

    @cached_property
    def preorder(self) -> list[FlatNode]:
        """Every node in pre-order, the root included; iterative, so depth is no risk."""
        out: list[FlatNode] = []
        stack: list[tuple[Node, int]] = [(self.root, 0)]
        pop, push, emit = stack.pop, stack.append, out.append
        while stack:
            node, depth = pop()
            emit(FlatNode(node, depth))
            for child in reversed(node.children):
                push((child, depth + 1))
        return out

    @cached_property
    def _real(self) -> list[FlatNode]:
        return self.preorder[1:] if self.root.role == ROOT_ROLE else self.preorder

    def flatten(self, include_root: bool = False) -> list[FlatNode]:
        """Pre-order nodes; the synthetic root is left out unless asked for (cached lists)."""
        return self.preorder if include_root else self._real

    @cached_property
    def nodes(self) -> list[Node]:
        """The real nodes in pre-order (cached)."""
        return [flat.node for flat in self._real]

    def size(self) -> int:
        """Number of real nodes (the synthetic root excluded)."""
        return len(self._real)

    @cached_property
    def signatures(self) -> list[Signature]:
        """The real nodes' signatures in pre-order: equal lists mean equal node sequences."""
        return [node.signature() for node in self.nodes]


def check_size(text: str, what: str) -> None:
    """Refuse an observation larger than MAX_CHARS before any parser sees it.

    Raises:
        BadInputError: the text is too large to parse safely.
    """
    if len(text) > MAX_CHARS:
        raise BadInputError(
            f"The {what} observation has {len(text):,} characters; the limit is {MAX_CHARS:,}."
        )


def load_json(text: str, what: str) -> Any:
    """Parse a JSON observation after the size check.

    Raises:
        BadInputError: too large, not JSON, or nested deeper than Python's parser allows.
    """
    check_size(text, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInputError(f"The {what} observation is not valid JSON: {exc}") from None
    except RecursionError:
        raise BadInputError(f"The {what} observation is nested too deeply.") from None


def collapse(text: str | None) -> str:
    """Collapse runs of whitespace into one space and trim, so layout noise is not a change."""
    return " ".join(text.split()) if text else ""


class TreeLimiter:
    """Counts nodes while a parser builds a tree and says when to stop descending.

    Every parser builds trees with an explicit stack and asks `admit(depth)` before creating a
    node, so depth and node caps are enforced in one place.
    """

    def __init__(self) -> None:
        self.count = 0
        self.truncated = False

    def admit(self, depth: int) -> bool:
        """True when a node at `depth` may be added; records truncation otherwise."""
        if depth > MAX_DEPTH or self.count >= MAX_NODES:
            self.truncated = True
            return False
        self.count += 1
        return True


def synthetic_root(children: list[Node]) -> Node:
    """A `#root` node holding several top-level nodes (tables, forests, HTML fragments)."""
    return Node(role=ROOT_ROLE, children=children)
