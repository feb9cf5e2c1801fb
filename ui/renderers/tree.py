"""Tree views shared by the accessibility-tree and Android renderers, drawn from backend trees.

The observation is parsed by the scoring parsers (`backend.scoring.parsers`) and nodes are marked
added or updated by the matching change F1 uses, so what the page highlights is what the metric
counts. This module draws the indented tree and, when nodes carry screen bounds, an SVG wireframe
of the screen. All text is escaped; all SVG numbers are ints.
"""

from __future__ import annotations

from collections import Counter

from backend.scoring.nodes import ROOT_ROLE, Bounds, FlatNode, Node, Tree
from backend.scoring.tree_change import node_statuses
from ui.renderers.base import esc, notice

MAX_NODES = 4_000
MAX_LABEL = 60


def _props(node: Node) -> str:
    """Attributes as `key='value'` text; flags set to "false" are left out.

    "false" is the resting state of every Android and BrowserGym flag; listing it on every row
    buries the flags that are set. A change to or from "false" is still marked as an update.
    """
    return ", ".join(
        f"{key}={value!r}" if value else key
        for key, value in node.attrs.items()
        if value != "false"
    )


def _node_line(flat: FlatNode, depth: int, status: str) -> str:
    """Render one row of the indented tree.

    Android classes and resource ids are shown without their package (`TextView`, `[title]`):
    the package repeats on every row; the full values stay in the wireframe tooltip and scoring.
    """
    node = flat.node
    parts = []
    if node.node_id:
        parts.append(f'<span class="awp-id">[{esc(node.node_id.rsplit("/", 1)[-1])}]</span>')
    parts.append(f'<span class="awp-role">{esc(node.role.rsplit(".", 1)[-1])}</span>')
    if node.name:
        parts.append(f'<span class="awp-name">{esc(repr(node.name)[1:-1])}</span>')
    if props := _props(node):
        parts.append(f'<span class="awp-props">{esc(props)}</span>')
    marker = f' awp-{status}" title="{status}' if status else ""
    style = f"padding-left:{min(depth, 40) * 1.2:.1f}em"
    return f'<div class="awp-node{marker}" style="{style}">{" ".join(parts)}</div>'


def render_tree(tree: Tree, statuses: list[str], removed: int | None) -> str:
    """Render the indented tree, with a change summary when `removed` is known (a previous state).

    The summary counts every node, shown or not, so it agrees with change F1 on large trees.
    """
    flat = tree.flatten()
    offset = 1 if tree.root.role == ROOT_ROLE else 0  # the synthetic root is not drawn
    head = ""
    if tree.truncated:
        head = notice("The tree is larger or deeper than the parser limits; the rest is omitted.")
    if len(flat) > MAX_NODES:
        head += notice(f"Showing the first {MAX_NODES:,} of {len(flat):,} nodes.")
    if removed is not None:
        counts = Counter(statuses)
        head += (
            f'<div class="awp-summary">Against the previous state: '
            f'<span class="awp-added">{counts["added"]} added</span> · '
            f'<span class="awp-updated">{counts["updated"]} updated</span> · '
            f"{removed} removed</div>"
        )
    rows = "".join(
        _node_line(node, node.depth - offset, status)
        for node, status in zip(flat[:MAX_NODES], statuses, strict=False)
    )
    return f'{head}<div class="awp-tree">{rows}</div>'


def _box(node: Node) -> Bounds | None:
    """The node's bounds when drawable (zero-size and inverted boxes are skipped)."""
    box = node.bounds
    return box if box and box[2] > box[0] and box[3] > box[1] else None


def render_wireframe(nodes: list[Node], statuses: list[str]) -> str:
    """Draw an SVG sketch of the screen from node bounds; "" when no node has usable bounds."""
    boxed = [
        (box, node, status)
        for node, status in zip(nodes[:MAX_NODES], statuses, strict=False)
        if (box := _box(node))
    ]
    if not boxed:
        return ""
    left = min(box[0] for box, _, _ in boxed)
    top = min(box[1] for box, _, _ in boxed)
    width = max(box[2] for box, _, _ in boxed) - left
    height = max(box[3] for box, _, _ in boxed) - top
    font = max(8, round(min(width, height) / 45))
    shapes = []
    for (x1, y1, x2, y2), node, status in boxed:
        label = node.name[:MAX_LABEL]
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


def render_tree_and_wireframe(tree: Tree, previous: Tree | None = None) -> str:
    """Render tree and wireframe side by side (the tree alone when there are no bounds)."""
    if previous is None:
        statuses, removed = [""] * tree.size(), None
    else:
        statuses, removed = node_statuses(previous, tree)
    wireframe = render_wireframe(tree.nodes, statuses)
    view = render_tree(tree, statuses, removed)
    if not wireframe:
        return view
    return (
        f'<div class="awp-split awp-split-tree"><div class="awp-pane awp-pane-tree">{view}</div>'
        f'<div class="awp-pane awp-pane-wire">{wireframe}</div></div>'
    )
