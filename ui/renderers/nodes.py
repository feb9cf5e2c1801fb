"""Parsers from the tree representations agents see into flat lists of display `Node`s.

Covered: indented text (BrowserGym accessibility trees), JSON trees (Windows UIA dumps, Android
view hierarchies), XML trees (uiautomator dumps, AT-SPI), and OSWorld's tab-separated table.
Each parser raises ValueError on text it does not understand; renderers then fall back to text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ui.renderers.safexml import parse_xml
from ui.renderers.tree import Bounds, Node

_LINE = re.compile(
    r"^(?:\[(?P<ident>[^\]]*)\]\s+)?(?P<role>\S+)(?:\s+'(?P<name>.*?)'(?=,|$))?(?:,?\s*(?P<props>.*))?$"
)
_BRACKETS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_PAIR = re.compile(r"\(?\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\)?")

ROLE_KEYS = ("ControlType", "role", "class", "className", "class_name", "tag", "type")
NAME_KEYS = ("Name", "name", "text", "title", "label", "content_description", "content-desc")
ID_KEYS = ("AutomationId", "resource_id", "resource-id", "resource_name", "bid", "id")
CHILD_KEYS = ("Children", "children", "nodes", "node")
BOUNDS_KEYS = ("BoundingRectangle", "bounds", "bbox", "bbox_pixels", "rect", "boundingBox")


def parse_bounds(value: Any) -> Bounds | None:
    """Read bounds from `[x1,y1][x2,y2]`, an ltrb dict, an x/y/width/height dict or a 4-list."""
    if isinstance(value, str):
        match = _BRACKETS.search(value)
        return tuple(int(v) for v in match.groups()) if match else None  # type: ignore[return-value]
    if isinstance(value, dict):
        for keys in (("left", "top", "right", "bottom"), ("x_min", "y_min", "x_max", "y_max")):
            if all(k in value for k in keys):
                return tuple(int(float(value[k])) for k in keys)  # type: ignore[return-value]
        if all(k in value for k in ("x", "y", "width", "height")):
            x, y = int(float(value["x"])), int(float(value["y"]))
            return (x, y, x + int(float(value["width"])), y + int(float(value["height"])))
    if isinstance(value, list | tuple) and len(value) == 4:
        return tuple(int(float(v)) for v in value)  # type: ignore[return-value]
    return None


def parse_indented(text: str) -> list[Node]:
    """Parse indented `[id] role 'name', props` lines (tabs, or spaces in the smallest step)."""
    lines = [line.rstrip("\r") for line in text.split("\n") if line.strip()]
    if not lines:
        raise ValueError("empty tree")
    widths = [len(line) - len(line.lstrip(" \t")) for line in lines]
    uses_tabs = any(line.startswith("\t") for line in lines)
    step = 1 if uses_tabs else min((w for w in widths if w), default=1)
    nodes = []
    for line, width in zip(lines, widths, strict=True):
        match = _LINE.match(line.strip())
        if match is None:
            raise ValueError(f"not a tree line: {line[:80]!r}")
        nodes.append(
            Node(
                depth=width // step,
                role=match["role"],
                name=match["name"] or "",
                ident=match["ident"] or "",
                props=(match["props"] or "").strip(),
            )
        )
    return nodes


def _first(mapping: dict[str, Any], keys: tuple[str, ...]) -> Any:
    """Return the value of the first key of `keys` set in `mapping`, else None."""
    return next((mapping[k] for k in keys if mapping.get(k) not in (None, "")), None)


def _walk_json(root: Any) -> Iterator[Node]:
    """Yield the pre-order nodes of a JSON tree (a dict with children, or a list of such dicts)."""
    stack: list[tuple[int, Any]] = [
        (0, item) for item in reversed(root if isinstance(root, list) else [root])
    ]
    while stack:
        depth, item = stack.pop()
        if not isinstance(item, dict):
            continue
        role = str(_first(item, ROLE_KEYS) or "node").rsplit(".", 1)[-1]
        ident = str(_first(item, ID_KEYS) or "").rsplit("/", 1)[-1]
        yield Node(
            depth,
            role,
            str(_first(item, NAME_KEYS) or ""),
            ident,
            bounds=parse_bounds(_first(item, BOUNDS_KEYS)),
        )
        children = _first(item, CHILD_KEYS) or []
        stack.extend(
            (depth + 1, child)
            for child in reversed(children if isinstance(children, list) else [children])
        )


def parse_json_tree(text: str) -> list[Node]:
    """Parse a JSON tree; raise ValueError when the text is not JSON or holds no node."""
    value = json.loads(text)
    if isinstance(value, dict) and "axtree" in value:
        value = value["axtree"]
    nodes = list(_walk_json(value))
    if not nodes:
        raise ValueError("no nodes in JSON")
    return nodes


def _xml_bounds(attrs: dict[str, str]) -> Bounds | None:
    """Read bounds from uiautomator `bounds` or AT-SPI `screencoord` + `size` attributes."""
    if "bounds" in attrs:
        return parse_bounds(attrs["bounds"])
    coord, size = attrs.get("screencoord"), attrs.get("size")
    if coord and size and (c := _PAIR.search(coord)) and (s := _PAIR.search(size)):
        x, y, w, h = (int(float(v)) for v in (*c.groups(), *s.groups()))
        return (x, y, x + w, y + h)
    return None


def parse_xml_tree(text: str) -> list[Node]:
    """Parse an XML tree: uiautomator `<node class=... text=... bounds=...>` or AT-SPI elements."""
    root = parse_xml(text)
    nodes = []
    stack = [(0, root)]
    while stack:
        depth, element = stack.pop()
        attrs = {etree_localname(k): str(v) for k, v in element.attrib.items()}
        tag = etree_localname(element.tag)
        role = (attrs.get("class") or tag).rsplit(".", 1)[-1]
        name = (
            attrs.get("text")
            or attrs.get("content-desc")
            or attrs.get("name")
            or (element.text or "").strip()
        )
        ident = attrs.get("resource-id", "").rsplit("/", 1)[-1]
        flags = [
            k for k in ("clickable", "checked", "selected", "focused") if attrs.get(k) == "true"
        ]
        nodes.append(Node(depth, role, name, ident, ", ".join(flags), _xml_bounds(attrs)))
        stack.extend(
            (depth + 1, child) for child in reversed(element) if isinstance(child.tag, str)
        )
    return nodes


def etree_localname(tag: Any) -> str:
    """Return an element tag without its namespace."""
    return str(tag).rsplit("}", 1)[-1]


def parse_table(text: str) -> list[Node]:
    """Parse OSWorld's linearised tree: a tab-separated header (tag, name, ...), a row a node."""
    header, *rows = [line for line in text.split("\n") if line.strip()]
    columns = [c.split(" ")[0].strip().lower() for c in header.split("\t")]
    if "tag" not in columns or "name" not in columns:
        raise ValueError("not an accessibility table")
    nodes = []
    for row in rows:
        cells = dict(zip(columns, row.split("\t"), strict=False))
        attrs = {"screencoord": cells.get("position", ""), "size": cells.get("size", "")}
        name = cells.get("name") or cells.get("text") or ""
        nodes.append(
            Node(
                0,
                cells.get("tag", ""),
                name,
                props=cells.get("class", ""),
                bounds=_xml_bounds(attrs),
            )
        )
    return nodes


def parse_any(text: str) -> list[Node]:
    """Detect the representation from the first character and header, then parse it."""
    head = text.lstrip("\ufeff \t\r\n")[:1]
    if head in "{[" and head:
        try:
            return parse_json_tree(text)
        except ValueError:
            pass  # "[12] button 'OK'" is an indented tree, not JSON
    if head == "<":
        return parse_xml_tree(text)
    if text.lstrip().lower().startswith("tag\t"):
        return parse_table(text)
    return parse_indented(text)
