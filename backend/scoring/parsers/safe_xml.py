"""Hardened lxml entry points: observations are untrusted text, often written by a model.

XML: no DTD loading, no entity resolution, no network, no huge-tree mode, and documents that
declare a DTD are refused outright, because libxml2 still expands internal entities inside
attribute values (the billion-laughs shape) even with `resolve_entities=False`. libxml2 itself
stops at 256 levels without huge-tree mode, which bounds depth. HTML: the lenient HTML parser
with network off; it never resolves external entities and caps depth silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol

from lxml import etree

from backend.errors import BadInputError
from backend.scoring.nodes import Node, Tree, TreeLimiter, check_size


class HtmlTarget(Protocol):
    """The lxml parser-target callbacks `parse_html` drives."""

    def start(self, tag: str, attrib: dict[str, str]) -> None: ...  # noqa: D102

    def end(self, tag: str) -> None: ...  # noqa: D102

    def data(self, data: str) -> None: ...  # noqa: D102

    def close(self) -> object: ...  # noqa: D102


_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_DTD = re.compile(r"<!(DOCTYPE|ENTITY)", re.IGNORECASE)


def _xml_parser() -> etree.XMLParser:
    """A fresh locked-down XML parser (parsers are not shared: lxml parsers are not thread-safe)."""
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


def clean_xml_text(text: str) -> str:
    """Drop what real dumps carry around the document.

    A byte-order mark, the XML declaration (its `encoding` would contradict the already decoded
    text: UTF-16 dumps arrive here as str), and anything after the last `>` such as the
    `UI hierchary dumped to: /dev/tty` trailer that `uiautomator dump` prints.
    """
    text = text.lstrip("\ufeff")
    text = _DECLARATION.sub("", text, count=1)
    end = text.rfind(">")
    return text[: end + 1] if end >= 0 else text


def parse_xml(text: str, what: str = "XML") -> etree._Element:
    """Parse untrusted XML text into an element tree.

    Args:
        text: the observation text (decoded).
        what: name of the format, used in error messages.

    Returns:
        The root element.

    Raises:
        BadInputError: too large, declares a DTD or entities, nested deeper than libxml2's
            limit of 256, or not well-formed.
    """
    check_size(text, what)
    text = clean_xml_text(text)
    if _DTD.search(text):
        raise BadInputError(f"The {what} observation declares a DTD or entities; refused.")
    try:
        root = etree.fromstring(text.encode("utf-8"), _xml_parser())
    except etree.XMLSyntaxError as exc:
        raise BadInputError(f"The {what} observation is not well-formed XML: {exc}") from None
    if root is None:
        raise BadInputError(f"The {what} observation is empty.")
    return root


def parse_html(text: str, target: HtmlTarget) -> None:
    """Feed untrusted HTML (a page or a fragment) to a parser target's callbacks.

    A target (`start(tag, attrib)`, `end(tag)`, `data(text)`, `close()`) skips lxml's own
    element tree and its Python proxies, which halves the time on a 2 MB page; comments,
    processing instructions and doctypes are dropped because the target has no callback for them.

    Raises:
        BadInputError: the text is larger than the parser limit.
    """
    check_size(text, "HTML")
    if not text.strip():
        return
    parser = etree.HTMLParser(
        target=target, no_network=True, huge_tree=False, recover=True, encoding="utf-8"
    )
    try:
        etree.fromstring(text.encode("utf-8"), parser)
    except etree.XMLSyntaxError:
        return


def element_tree(
    root_element: etree._Element,
    root: Node,
    make_node: Callable[[etree._Element], Node],
    fmt: str,
) -> Tree:
    """Build a node tree below `root` from parsed XML, iteratively and within the tree limits.

    Comments and processing instructions are skipped; `make_node` turns each element into a
    Node, so each XML format only says how one element reads.
    """
    limiter = TreeLimiter()
    stack: list[tuple[etree._Element, Node, int]] = [(root_element, root, 0)]
    while stack:
        element, node, depth = stack.pop()
        for child in element:
            if not isinstance(child.tag, str) or not limiter.admit(depth + 1):
                continue
            child_node = make_node(child)
            node.children.append(child_node)
            stack.append((child, child_node, depth + 1))
    return Tree(root=root, fmt=fmt, truncated=limiter.truncated)
