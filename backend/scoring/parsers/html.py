"""HTML / DOM observations (pages, BrowserGym pruned HTML with `bid` attributes) via lxml."""

from __future__ import annotations

from backend.scoring.nodes import Node, Tree, TreeLimiter, synthetic_root
from backend.scoring.parsers.safe_xml import parse_html

KEY_ATTRS = frozenset(
    {
        "id",
        "class",
        "name",
        "type",
        "value",
        "href",
        "src",
        "role",
        "title",
        "alt",
        "placeholder",
        "checked",
        "selected",
        "disabled",
        "hidden",
        "for",
        "action",
        "open",
    }
)
"""Attributes that carry identity or state; `style` and event handlers are left out as noise."""
SILENT_TAGS = frozenset({"script", "style", "noscript", "template"})
"""Tags whose text is code, not content: kept as nodes, their text ignored."""


class _NodeBuilder:
    """lxml parser target that builds Nodes directly, with the shared depth and size caps.

    An element's name is all text directly inside it (its text and its children's tails),
    whitespace collapsed. A skipped element (too deep, too many) pushes None so its end tag
    and its children are skipped too.
    """

    def __init__(self) -> None:
        self.root = synthetic_root([])
        self.limiter = TreeLimiter()
        self.stack: list[Node | None] = [self.root]
        self.texts: list[list[str] | None] = [[]]

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        parent = self.stack[-1]
        if parent is None or not self.limiter.admit(len(self.stack)):
            self.stack.append(None)
            self.texts.append(None)
            return
        attrs: dict[str, str] = {}
        node_id = ""
        if attrib:  # lxml passes a slow generic mapping when there are no attributes
            attrs = {k: v for k, v in attrib.items() if k in KEY_ATTRS or k[:5] == "aria-"}
            node_id = attrib.get("bid") or attrib.get("id") or ""
        node = Node(role=tag.lower(), attrs=attrs, node_id=node_id)
        parent.children.append(node)
        self.stack.append(node)
        self.texts.append(None if node.role in SILENT_TAGS else [])

    def end(self, tag: str) -> None:
        node, texts = self.stack.pop(), self.texts.pop()
        if node is not None and texts:
            node.name = " ".join(" ".join(texts).split())

    def data(self, data: str) -> None:
        texts = self.texts[-1]
        if texts is not None:
            texts.append(data)

    def close(self) -> Node:
        return self.root


def parse_html_tree(text: str) -> Tree:
    """Parse a page or fragment; lxml wraps fragments in `<html><body>` the same way every time.

    Raises:
        BadInputError: the text is larger than the parser limit.
    """
    builder = _NodeBuilder()
    parse_html(text, builder)
    return Tree(root=builder.root, fmt="html", truncated=builder.limiter.truncated)
