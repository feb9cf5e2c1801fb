"""Tree views shared by the accessibility-tree and Android renderers.

Parsers turn each representation into a flat pre-order list of `Node`s; this module draws the
indented tree (marking nodes added or updated since the previous state) and, when nodes carry
screen bounds, an SVG wireframe of the screen. All text is escaped; all SVG numbers are ints.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from ui.renderers.base import esc, notice

MAX_NODES = 4_000
MAX_LABEL = 60

Bounds = tuple[int, int, int, int]


@dataclass(frozen=True)
class Node:
    """One tree node in display form.

    Attributes:
        depth: nesting level, 0 at the root.
        role: control type, class or accessibility role.
        name: visible name or text.
        ident: a stable id shown as a badge (BrowserGym bid, Android resource id).
        props: remaining attributes, already formatted as text.
        bounds: (left, top, right, bottom) in screen pixels, when known.

    """

    depth: int
    role: str
    name: str = ""
    ident: str = ""
    props: str = ""
    bounds: Bounds | None = None

    @property
    def key(self) -> tuple[str, str]:
        """Identify the node across two states: by its id, else by its role and name."""
        return ("id", self.ident) if self.ident else (self.role, self.name)

    @property
    def signature(self) -> tuple[str, str, str, Bounds | None]:
        """Return everything whose change counts as an update."""
        return (self.role, self.name, self.props, self.bounds)


def changes(nodes: list[Node], previous: list[Node]) -> tuple[list[str], int]:
    """Return each node's status against `previous` (added, updated or "") and the removed count."""
    before: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for node in previous:
        before[node.key][node.signature] += 1
    statuses = []
    for node in nodes:
        seen = before.get(node.key)
        if seen is None:
            statuses.append("added")
        elif seen[node.signature] > 0:
            seen[node.signature] -= 1
            statuses.append("")
        else:
            statuses.append("updated")
    now = {node.key for node in nodes}
    removed = sum(1 for node in previous if node.key not in now)
    return statuses, removed


def _node_line(node: Node, status: str) -> str:
    """Render one row of the indented tree."""
    parts = []
    if node.ident:
        parts.append(f'<span class="awp-id">[{esc(node.ident)}]</span>')
    parts.append(f'<span class="awp-role">{esc(node.role)}</span>')
    if node.name:
        parts.append(f'<span class="awp-name">{esc(repr(node.name)[1:-1])}</span>')
    if node.props:
        parts.append(f'<span class="awp-props">{esc(node.props)}</span>')
    marker = f' awp-{status}" title="{status}' if status else ""
    indent = min(node.depth, 40) * 1.2
    style = f"padding-left:{indent:.1f}em"
    return f'<div class="awp-node{marker}" style="{style}">{" ".join(parts)}</div>'


def render_tree(nodes: list[Node], previous: list[Node] | None = None) -> str:
    """Render the indented tree, with a change summary when a previous state is given."""
    shown = nodes[:MAX_NODES]
    head = ""
    if len(nodes) > MAX_NODES:
        head = notice(f"Showing the first {MAX_NODES:,} of {len(nodes):,} nodes.")
    if previous is None:
        statuses = [""] * len(shown)
    else:
        statuses, removed = changes(shown, previous)
        counts = Counter(statuses)
        head += (
            f'<div class="awp-summary">Against the previous state: '
            f'<span class="awp-added">{counts["added"]} added</span> · '
            f'<span class="awp-updated">{counts["updated"]} updated</span> · '
            f"{removed} removed</div>"
        )
    rows = "".join(_node_line(node, status) for node, status in zip(shown, statuses, strict=True))
    return f'{head}<div class="awp-tree">{rows}</div>'


def _has_area(bounds: Bounds) -> bool:
    """Tell whether a box is drawable (zero-size and inverted boxes are skipped)."""
    return bounds[2] > bounds[0] and bounds[3] > bounds[1]


def render_wireframe(nodes: list[Node], previous: list[Node] | None = None) -> str:
    """Draw an SVG sketch of the screen from node bounds; "" when no node has usable bounds."""
    boxed = [n for n in nodes[:MAX_NODES] if n.bounds and _has_area(n.bounds)]
    if not boxed:
        return ""
    statuses = changes(boxed, previous)[0] if previous is not None else [""] * len(boxed)
    left = min(n.bounds[0] for n in boxed)  # type: ignore[index]
    top = min(n.bounds[1] for n in boxed)  # type: ignore[index]
    width = max(n.bounds[2] for n in boxed) - left  # type: ignore[index]
    height = max(n.bounds[3] for n in boxed) - top  # type: ignore[index]
    font = max(8, round(min(width, height) / 45))
    shapes = []
    for node, status in zip(boxed, statuses, strict=True):
        x1, y1, x2, y2 = node.bounds  # type: ignore[misc]
        label = (node.name or "")[:MAX_LABEL]
        tip = esc(f"{node.role} {node.name}".strip()[:200])
        text = (
            f'<text x="{x1 + 4}" y="{y1 + font + 2}" font-size="{font}">{esc(label)}</text>'
            if label and y2 - y1 > font
            else ""
        )
        css = f"awp-box awp-{status}" if status else "awp-box"
        shapes.append(
            f'<g class="{css}"><title>{tip}</title>'
            f'<rect x="{x1}" y="{y1}" width="{x2 - x1}" height="{y2 - y1}"/>{text}</g>'
        )
    return (
        f'<svg class="awp-wireframe" viewBox="{left} {top} {width} {height}" '
        f'preserveAspectRatio="xMidYMin meet" role="img" aria-label="Screen wireframe">'
        f"{''.join(shapes)}</svg>"
    )


def render_tree_and_wireframe(nodes: list[Node], previous: list[Node] | None = None) -> str:
    """Render tree and wireframe side by side (the tree alone when there are no bounds)."""
    wireframe = render_wireframe(nodes, previous)
    tree = render_tree(nodes, previous)
    if not wireframe:
        return tree
    return (
        f'<div class="awp-split awp-split-tree"><div class="awp-pane awp-pane-tree">{tree}</div>'
        f'<div class="awp-pane awp-pane-wire">{wireframe}</div></div>'
    )
