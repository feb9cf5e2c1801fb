"""Android layouts: `uiautomator dump` XML and DroidBot-style view-hierarchy JSON."""

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
    collapse,
    load_json,
    synthetic_root,
)
from backend.scoring.parsers.safe_xml import element_tree, parse_xml

STATE_ATTRS = (
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
    "package",
    "content-desc",
    "hint",
)
"""Attributes that change with the app's state. `index` and `drawing-order` are layout noise."""

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


def parse_bounds(value: str | None) -> Bounds | None:
    """`[x1,y1][x2,y2]` -> (x1, y1, x2, y2); None when absent or malformed."""
    match = _BOUNDS.fullmatch(value.strip()) if value else None
    if match is None:
        return None
    x1, y1, x2, y2 = (int(group) for group in match.groups())
    return (x1, y1, x2, y2)


def _xml_node(element: etree._Element) -> Node:
    get = element.get
    attrs = {key: get(key, "") for key in STATE_ATTRS if get(key) not in (None, "")}
    return Node(
        role=get("class") or str(element.tag),
        name=collapse(get("text")) or collapse(get("content-desc")),
        attrs=attrs,
        bounds=parse_bounds(get("bounds")),
        node_id=get("resource-id") or "",
    )


def parse_android_xml(text: str) -> Tree:
    """Parse a uiautomator dump (UTF-16 decoded, CRLF, trailer line all accepted).

    The `<hierarchy>` element becomes the root; every `<node>` below it a Node.

    Raises:
        BadInputError: the XML is hostile or malformed (see `parse_xml`).
    """
    root_element = parse_xml(text, "Android XML")
    root = Node(role=str(root_element.tag), attrs=_root_attrs(root_element))
    return element_tree(root_element, root, _xml_node, "android_xml")


def _root_attrs(element: etree._Element) -> dict[str, str]:
    rotation = element.get("rotation")
    return {"rotation": rotation} if rotation is not None else {}


def _json_bounds(value: Any) -> Bounds | None:
    """DroidBot writes `[[x1, y1], [x2, y2]]`; some tools write a flat list or a string."""
    if isinstance(value, str):
        return parse_bounds(value)
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, list) for v in value):
        value = [*value[0], *value[1]]
    if (
        isinstance(value, list)
        and len(value) == 4
        and all(isinstance(v, int | float) for v in value)
    ):
        x1, y1, x2, y2 = (int(v) for v in value)
        return (x1, y1, x2, y2)
    return None


def _json_node(view: dict[str, Any]) -> Node:
    attrs = {
        key.replace("_", "-"): str(value).lower() if isinstance(value, bool) else str(value)
        for key, value in view.items()
        if key.replace("_", "-") in STATE_ATTRS and value not in (None, "")
    }
    for key in ("content_description", "content-description"):
        if view.get(key):
            attrs["content-desc"] = str(view[key])
    return Node(
        role=str(view.get("class") or view.get("class_name") or "view"),
        name=collapse(str(view.get("text") or "")) or attrs.get("content-desc", ""),
        attrs=attrs,
        bounds=_json_bounds(view.get("bounds")),
        node_id=str(view.get("resource_id") or view.get("resource-id") or ""),
    )


def parse_android_json(text: str) -> Tree:
    """Parse a DroidBot view list (`children` as indices) or a nested view dict.

    Raises:
        BadInputError: the text is not JSON or has no views.
    """
    data = load_json(text, "Android JSON")
    if isinstance(data, dict) and isinstance(data.get("views"), list):
        data = data["views"]
    limiter = TreeLimiter()
    if isinstance(data, list) and all(isinstance(view, dict) for view in data):
        return Tree(_from_view_list(data, limiter), "android_json", limiter.truncated)
    if isinstance(data, dict):
        return Tree(_from_nested(data, limiter), "android_json", limiter.truncated)
    raise BadInputError("The Android JSON observation is neither a view list nor a view tree.")


def _from_view_list(views: list[dict[str, Any]], limiter: TreeLimiter) -> Node:
    """DroidBot: each view names its parent (-1 for roots) and its children by index."""
    roots = [i for i, view in enumerate(views) if view.get("parent", -1) in (-1, None)]
    top: list[Node] = []
    stack: list[tuple[int, list[Node], int]] = [(i, top, 1) for i in reversed(roots)]
    seen: set[int] = set()
    while stack:
        index, siblings, depth = stack.pop()
        if index in seen or not 0 <= index < len(views) or not limiter.admit(depth):
            continue
        seen.add(index)
        node = _json_node(views[index])
        siblings.append(node)
        children = [c for c in views[index].get("children") or [] if isinstance(c, int)]
        stack.extend((child, node.children, depth + 1) for child in reversed(children))
    return synthetic_root(top)


def _from_nested(view: dict[str, Any], limiter: TreeLimiter) -> Node:
    top: list[Node] = []
    stack: list[tuple[dict[str, Any], list[Node], int]] = [(view, top, 1)]
    while stack:
        current, siblings, depth = stack.pop()
        if not limiter.admit(depth):
            continue
        node = _json_node(current)
        siblings.append(node)
        children = [c for c in current.get("children") or [] if isinstance(c, dict)]
        stack.extend((child, node.children, depth + 1) for child in reversed(children))
    return synthetic_root(top)
