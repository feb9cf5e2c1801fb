"""Tree observations: BrowserGym accessibility trees, desktop accessibility trees, Android layouts.

Each renderer parses with the scoring parsers, choosing the format exactly as scoring does for
the domain's observation kind (`backend.scoring.parsers.detect_format`), so the page shows the
tree the metrics score. It draws the indented tree, marks what changed since the previous state,
and sketches the screen when the nodes carry screen bounds. Text that is not shaped like a tree
of its format (a model answering in prose) is shown as text with a notice, never as made-up nodes.
"""

from __future__ import annotations

from backend.errors import BadInputError
from backend.scoring.nodes import Tree
from backend.scoring.parsers import detect_format, parse_tree
from backend.scoring.parsers.shape import looks_like_tree
from backend.types import ObservationKind
from ui.renderers.base import fallback, register
from ui.renderers.html_page import render_html
from ui.renderers.tree import render_tree_view

NOT_A_TREE = "This reads as prose, not as a tree of this domain's format; shown as plain text."


def _parse_previous(kind: str, previous: str | None) -> Tree | None:
    """Parse the previous state, or return None when there is none or it is not a tree."""
    if previous is None or not looks_like_tree(kind, previous):
        return None
    try:
        return parse_tree(kind, previous)
    except BadInputError:
        return None


def _render_tree(kind: str, text: str, previous: str | None) -> str:
    """Parse and draw; prose, or text the parser rejects, is shown as escaped text."""
    if not looks_like_tree(kind, text):
        return fallback(text, NOT_A_TREE)
    try:
        tree = parse_tree(kind, text)
    except BadInputError as exc:
        return fallback(text, f"{exc} Shown as text.")
    return render_tree_view(tree, _parse_previous(kind, previous))


@register("axtree")
def render_axtree(text: str, previous: str | None = None) -> str:
    """Render a BrowserGym accessibility tree; HTML goes to the sandboxed page view.

    A page reads better as the page than as its DOM tree, and the sandbox keeps it inert.
    """
    if detect_format(ObservationKind.AXTREE, text) == "html":
        return render_html(text, previous)
    return _render_tree(ObservationKind.AXTREE, text, previous)


@register("a11y_tree")
def render_a11y_tree(text: str, previous: str | None = None) -> str:
    """Render a desktop accessibility tree: UIA JSON, AT-SPI XML or OSWorld's table."""
    return _render_tree(ObservationKind.A11Y_TREE, text, previous)


@register("android")
def render_android(text: str, previous: str | None = None) -> str:
    """Render an Android UI hierarchy (uiautomator XML or DroidBot JSON) and its wireframe."""
    return _render_tree(ObservationKind.ANDROID_XML, text, previous)
