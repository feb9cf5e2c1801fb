"""Tree views shared by the accessibility-tree and Android renderers, drawn from backend trees.

The observation is parsed by the scoring parsers (`backend.scoring.parsers`) and nodes are marked
added or updated by the matching change F1 uses, so what the page highlights is what the metric
counts. This module draws the indented tree and puts it beside a sketch of the screen
(`ui.renderers.screen`) when nodes carry screen bounds. All text is escaped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Iterator

from backend.scoring.nodes import ROOT_ROLE, FlatNode, Node, Tree
from backend.scoring.tree_change import node_statuses
from ui.renderers.base import esc, notice
from ui.renderers.screen import render_screen

MAX_NODES = 4_000
RESTING = {"enabled": "true"}
"""Flag values almost every node has, left out like "false" ones."""


def _props(node: Node, hidden: Container[str] = ()) -> str:
    """Attributes as `key='value'` text; resting flags and `hidden` keys are left out.

    "false" is the resting state of every Android and BrowserGym flag, as `enabled='true'` is;
    listing them on every row buries the flags that are set. A change to or from a resting
    value is still marked as an update.
    """
    return ", ".join(
        f"{key}={value!r}" if value else key
        for key, value in node.attrs.items()
        if value != "false" and RESTING.get(key) != value and key not in hidden
    )


def _node_line(node: Node, depth: int, status: str, hidden: Container[str]) -> str:
    """Render one row of the indented tree.

    Android classes and resource ids are shown without their package (`TextView`, `[title]`):
    the package repeats on every row; the full values stay in the screen tooltip and scoring.
    """
    parts = []
    if node.node_id:
        parts.append(f'<span class="awp-id">[{esc(node.node_id.rsplit("/", 1)[-1])}]</span>')
    parts.append(f'<span class="awp-role">{esc(node.role.rsplit(".", 1)[-1])}</span>')
    if node.name:
        parts.append(f'<span class="awp-name">{esc(repr(node.name)[1:-1])}</span>')
    if props := _props(node, hidden):
        parts.append(f'<span class="awp-props">{esc(props)}</span>')
    marker = f' awp-{status}" title="{status}' if status else ""
    style = f"padding-left:{min(depth, 40):d}em"
    return f'<div class="awp-node{marker}" style="{style}">{" ".join(parts)}</div>'


def _rows(flat: list[FlatNode], statuses: list[str], offset: int) -> Iterator[str]:
    """The tree rows; an app's package is shown where it first appears and where it changes."""
    package: str | None = None
    for item, status in zip(flat, statuses, strict=False):
        own = item.node.attrs.get("package")
        hidden = ("package",) if own is not None and own == package else ()
        package = own if own is not None else package
        yield _node_line(item.node, item.depth - offset, status, hidden)


def render_tree(tree: Tree, statuses: list[str], removed: int | None) -> tuple[str, str]:
    """Render the indented tree's rows, and the notices and change summary that go above them.

    The summary is shown when `removed` is known (there is a previous state); it counts every
    node, shown or not, so it agrees with change F1 on large trees.

    Returns:
        (head, rows): the notices and summary, and the tree rows.
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
    return head, "".join(_rows(flat[:MAX_NODES], statuses, offset))


def render_tree_view(tree: Tree, previous: Tree | None = None) -> str:
    """Render the change summary, the screen sketch (when nodes have bounds) and the tree.

    The sketch and the tree sit side by side when the panel is wide enough; in a narrow panel
    the tree wraps below the sketch and takes the full width, scrolling on its own.
    """
    if previous is None:
        statuses, removed = [""] * tree.size(), None
    else:
        statuses, removed = node_statuses(previous, tree)
    head, rows = render_tree(tree, statuses, removed)
    screen = render_screen(tree, statuses)
    return (
        f'{head}<div class="awp-treeview">{screen}'
        f'<div class="awp-tree-scroll"><div class="awp-tree">{rows}</div></div></div>'
    )
