"""Desktop accessibility trees: Windows UIA JSON (OpenCUA AgentNet), OSWorld table, AT-SPI XML."""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from backend.errors import BadInputError
from backend.scoring.nodes import (
    Bounds,
    Node,
    Tree,
    TreeLimiter,
    check_size,
    collapse,
    load_json,
    synthetic_root,
)
from backend.scoring.parsers.safe_xml import element_tree, parse_xml

_UIA_STRUCTURE = frozenset({"Name", "ControlType", "BoundingRectangle", "Depth", "Children"})
_INTS = re.compile(r"-?\d+")
_ATSPI_STRUCTURE = frozenset({"name", "screencoord", "windowcoord", "parentcoord", "size"})
"""AT-SPI attributes that are the node's name or geometry, not state (geometry becomes bounds)."""


def _uia_bounds(rect: Any) -> Bounds | None:
    if not isinstance(rect, dict):
        return None
    try:
        return (int(rect["left"]), int(rect["top"]), int(rect["right"]), int(rect["bottom"]))
    except (KeyError, TypeError, ValueError):
        return None


def _uia_node(data: dict[str, Any]) -> Node:
    attrs = {
        key: str(value)
        for key, value in data.items()
        if key not in _UIA_STRUCTURE and isinstance(value, str | int | float | bool)
    }
    return Node(
        role=str(data.get("ControlType") or "Control"),
        name=collapse(str(data.get("Name") or "")),
        attrs=attrs,
        bounds=_uia_bounds(data.get("BoundingRectangle")),
        node_id=str(data.get("AutomationId") or ""),
    )


def parse_uia_json(text: str) -> Tree:
    """Parse a UIA tree (`Name`, `ControlType`, `BoundingRectangle`, `Children`).

    Accepts the tree itself, a recorder line wrapping it as `{"axtree": ...}`, or a list of trees.

    Raises:
        BadInputError: not JSON, or no tree in it.
    """
    data = load_json(text, "desktop accessibility tree")
    if isinstance(data, dict) and isinstance(data.get("axtree"), dict | list):
        data = data["axtree"]
    trees = data if isinstance(data, list) else [data]
    if not all(isinstance(tree, dict) for tree in trees):
        raise BadInputError("The desktop accessibility tree JSON holds no UIA nodes.")
    limiter = TreeLimiter()
    top: list[Node] = []
    stack: list[tuple[dict[str, Any], list[Node], int]] = [(t, top, 1) for t in reversed(trees)]
    while stack:
        current, siblings, depth = stack.pop()
        if not limiter.admit(depth):
            continue
        node = _uia_node(current)
        siblings.append(node)
        children = [c for c in current.get("Children") or [] if isinstance(c, dict)]
        stack.extend((child, node.children, depth + 1) for child in reversed(children))
    return Tree(root=synthetic_root(top), fmt="uia_json", truncated=limiter.truncated)


def _table_bounds(position: str, size: str) -> Bounds | None:
    """`(x, y)` and `(w, h)` -> (left, top, right, bottom)."""
    xy, wh = _INTS.findall(position), _INTS.findall(size)
    if len(xy) != 2 or len(wh) != 2:
        return None
    x, y, w, h = (int(v) for v in (*xy, *wh))
    return (x, y, x + w, y + h)


def parse_osworld_table(text: str) -> Tree:
    """Parse OSWorld's tab-separated table (`tag name text class description position size`).

    The table is flat, so every row is a child of one synthetic root; rows keep their order.

    Raises:
        BadInputError: the text is larger than the parser limit.
    """
    check_size(text, "desktop accessibility table")
    lines = [line for line in text.split("\n") if line.strip()]
    header = [col.strip().lower() for col in lines[0].split("\t")] if lines else []
    has_header = bool(header) and header[0] == "tag"
    columns = header if has_header else ["tag", "name", "text", "class", "description"]
    limiter = TreeLimiter()
    rows: list[Node] = []
    for line in lines[1:] if has_header else lines:
        if not limiter.admit(1):
            break
        cells = dict(zip(columns, (cell.strip() for cell in line.split("\t")), strict=False))
        position = next((v for k, v in cells.items() if k.startswith("position")), "")
        size = next((v for k, v in cells.items() if k.startswith("size")), "")
        attrs = {k: cells[k] for k in ("text", "class", "description") if cells.get(k)}
        rows.append(
            Node(
                role=cells.get("tag", "") or "row",
                name=collapse(cells.get("name", "")),
                attrs=attrs,
                bounds=_table_bounds(position, size),
            )
        )
    return Tree(root=synthetic_root(rows), fmt="osworld_table", truncated=limiter.truncated)


def _local(name: object) -> str:
    """`{https://...ns/state}focused` -> `focused`: AT-SPI namespaces only group attributes."""
    return str(name).rsplit("}", 1)[-1]


def _atspi_node(element: etree._Element) -> Node:
    attrs = {_local(key): str(value) for key, value in element.attrib.items()}
    return Node(
        role=_local(element.tag),
        name=collapse(attrs.get("name")) or collapse(element.text),
        attrs={k: v for k, v in attrs.items() if k not in _ATSPI_STRUCTURE},
        bounds=_table_bounds(attrs.get("screencoord", ""), attrs.get("size", "")),
    )


def parse_atspi_xml(text: str) -> Tree:
    """Parse OSWorld's raw AT-SPI XML (`<desktop-frame>`, `st:` states, `cp:screencoord`/`cp:size`).

    This is the markup form of a Linux desktop's tree, so the strict XML parser applies: a DTD
    or a malformed document is refused rather than guessed at, as for uiautomator dumps.

    Raises:
        BadInputError: the XML is hostile or malformed (see `parse_xml`).
    """
    root_element = parse_xml(text, "AT-SPI XML")
    return element_tree(root_element, _atspi_node(root_element), _atspi_node, "atspi_xml")
