"""Tree observations: BrowserGym accessibility trees, desktop accessibility trees, Android layouts.

Each renderer parses the observation (and the previous state, to mark what changed) into display
nodes and draws the indented tree, plus an SVG wireframe when the nodes carry screen bounds.
"""

from __future__ import annotations

from collections.abc import Callable

from ui.renderers.base import fallback, register
from ui.renderers.html_page import render_html
from ui.renderers.nodes import parse_any, parse_indented, parse_json_tree, parse_xml_tree
from ui.renderers.tree import Node, render_tree_and_wireframe

Parser = Callable[[str], list[Node]]


def _parse_previous(parser: Parser, previous: str | None) -> list[Node] | None:
    """Parse the previous state, or return None when there is none or it does not parse."""
    if previous is None:
        return None
    try:
        return parser(previous)
    except ValueError:
        return None


def _render_with(parser: Parser, text: str, previous: str | None, what: str) -> str:
    """Parse and draw, falling back to escaped text when `parser` rejects the observation."""
    try:
        nodes = parser(text)
    except ValueError as exc:
        return fallback(text, f"Could not read this as {what} ({exc}); shown as text.")
    return render_tree_and_wireframe(nodes, _parse_previous(parser, previous))


def _looks_like_html(text: str) -> bool:
    """Tell DOM from accessibility tree: web observations come in either representation."""
    start = text.lstrip()[:200].lower()
    return start.startswith(("<!doctype", "<html", "<head", "<body", "<div"))


@register("axtree")
def render_axtree(text: str, previous: str | None = None) -> str:
    """Render a BrowserGym accessibility tree; HTML goes to the sandboxed page view."""
    if _looks_like_html(text):
        return render_html(text, previous)
    return _render_with(parse_indented, text, previous, "an accessibility tree")


@register("a11y_tree")
def render_a11y_tree(text: str, previous: str | None = None) -> str:
    """Render a desktop accessibility tree: UIA JSON, AT-SPI XML, OSWorld table or indented."""
    return _render_with(parse_any, text, previous, "an accessibility tree")


def _parse_android(text: str) -> list[Node]:
    """Parse a uiautomator XML dump or a JSON view hierarchy."""
    stripped = text.lstrip("\ufeff \t\r\n")
    return parse_json_tree(text) if stripped[:1] in "{[" else parse_xml_tree(text)


@register("android")
def render_android(text: str, previous: str | None = None) -> str:
    """Render an Android UI hierarchy as a tree and a wireframe of the screen."""
    return _render_with(_parse_android, text, previous, "an Android layout")
