"""A readable sketch of the screen drawn from node bounds: a phone or a desktop, to scale.

Nodes become absolutely positioned boxes on a white screen, placed in percent of the screen so
the sketch fills whatever width the page gives it, while labels keep a fixed, legible font size
(the CSS in `ui.theme`). Only the innermost text is written, so a button and the text view inside
it do not print the same label twice; clickable and focused elements are outlined and changed
nodes tinted, as in the tree beside the sketch. Every number in a style attribute is computed
here from integers; every label is escaped.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from backend.scoring.nodes import Bounds, Node, Tree
from ui.renderers.base import esc
from ui.renderers.screen_geometry import Screen, covered, find_screen, rooms

MAX_BOXES = 1_500
"""Boxes drawn at most; past this a sketch is noise and the tree beside it has everything."""
MAX_LABEL = 400
"""Characters of a label; a box shows fewer (lines are clamped to its height), the tooltip more."""
PHONE_FORMATS = frozenset({"android_xml", "android_json"})
"""Tree formats drawn inside a phone's frame; other screens get a plain border."""
TEXT_LINES = 2
"""Labelled boxes up to this many lines tall are text and opaque; taller ones are see-through."""
MIN_LABEL_PX = 14
"""Narrower boxes (scroll bars, thumbs) get no label unless it is a digit or two (a stepper)."""

INTERACTIVE_ROLES = frozenset(
    {
        "button",
        "pushbutton",
        "push-button",
        "togglebutton",
        "toggle-button",
        "imagebutton",
        "checkbox",
        "check-box",
        "radiobutton",
        "radio-button",
        "switch",
        "link",
        "hyperlink",
        "menuitem",
        "menu-item",
        "tabitem",
        "page-tab",
        "combobox",
        "combo-box",
        "edit",
        "entry",
        "text-field",
        "edittext",
        "listitem",
        "list-item",
        "slider",
        "spinner",
        "spin-button",
    }
)
"""Roles a person can act on, for formats that carry no `clickable` flag (UIA, AT-SPI)."""


def _short_role(node: Node) -> str:
    """`android.widget.Button` -> `button`, `ButtonControl` -> `button`."""
    role = node.role.rsplit(".", 1)[-1].lower()
    return role.removesuffix("control") or role


def is_interactive(node: Node) -> bool:
    """Whether a person can click or type into the node."""
    flag = node.attrs.get("clickable")
    return flag == "true" if flag is not None else _short_role(node) in INTERACTIVE_ROLES


def is_focused(node: Node) -> bool:
    """Whether the node has input focus."""
    return node.attrs.get("focused", "").lower() == "true"


def is_icon(name: str) -> bool:
    """Whether a name is only icon-font glyphs (Unicode private use), which draw as empty boxes."""
    return all(
        0xE000 <= ord(char) <= 0xF8FF or ord(char) >= 0xF0000 or char.isspace() for char in name
    )


def _has_text(node: Node) -> bool:
    return bool(node.name) and not is_icon(node.name)


def _label(node: Node) -> str:
    """The text drawn in the box: its name, with a check box glyph for checkable nodes."""
    name = node.name[:MAX_LABEL]
    if node.attrs.get("checkable") == "true" or _short_role(node) in {"checkbox", "check-box"}:
        mark = "☑" if node.attrs.get("checked", "").lower() == "true" else "☐"
        return f"{mark} {name}".strip()
    return name


def _text_below(tree: Tree) -> set[int]:
    """Ids of the nodes with text somewhere below them.

    Children come after their parent in pre-order, so walking backwards sees every child first.
    """
    below: set[int] = set()
    for node in reversed(tree.nodes):
        if any(_has_text(child) or id(child) in below for child in node.children):
            below.add(id(node))
    return below


@dataclass(frozen=True)
class Drawn:
    """A node that gets a box: where, what changed, and whether its text is written in it."""

    node: Node
    status: str
    box: Bounds
    labelled: bool


def _box(item: Drawn, screen: Screen, room: int | None) -> str:
    """One element: outline by what it is, label when it is the text, and what changed.

    A text-sized box is opaque, so a menu or list drawn over other text hides what lies
    beneath, as on the screen; a large labelled box (a pane that closes a pop-up when clicked)
    stays see-through. A changed text is tinted; a changed box without text gets a coloured inner
    edge instead, because tints of nested boxes add up to a solid slab.
    """
    node, status, box = item.node, item.status, item.box
    classes = ["awp-el"]
    notes = [_short_role(node)]
    if is_interactive(node):
        classes.append("awp-el-click")
        notes.append("clickable")
    if is_focused(node):
        classes.append("awp-el-focus")
        notes.append("focused")
    if status:
        classes.append(f"awp-el-{status}" if item.labelled else f"awp-el-{status}-box")
        notes.append(status)
    if not _has_text(node) and ("image" in _short_role(node) or node.name):
        classes.append("awp-el-image")
    tip = esc(" · ".join([node.name[:MAX_LABEL].strip() or "(no text)", *notes]))
    style = screen.style(box)
    text = ""
    if item.labelled:
        lines = screen.lines(box)
        classes.extend(["awp-el-text"] if lines <= TEXT_LINES else [])
        kind = "awp-el-line" if lines == 1 else "awp-el-para"
        style += f";--lines:{lines}"
        if room is not None and lines == 1:
            style += f";--room:{100 * (room - box[0]) / (box[2] - box[0]):.0f}%"
        text = f'<span class="awp-el-label {kind}">{esc(_label(node))}</span>'
    return f'<div class="{" ".join(classes)}" style="{style}" title="{tip}">{text}</div>'


def _drawn(tree: Tree, statuses: list[str], screen: Screen) -> list[Drawn]:
    """The nodes worth a box, in document order (later boxes lie on top), at most MAX_BOXES.

    Plain containers add only clutter; everything a person reads or acts on is drawn.
    """
    text_below = _text_below(tree)
    items: list[Drawn] = []
    for node, status in zip(tree.nodes, statuses, strict=False):
        box = screen.clip(node.bounds) if node.bounds else None
        if box is None:
            continue
        labelled = (
            _has_text(node)
            and id(node) not in text_below
            and (screen.css_px(box[2] - box[0]) >= MIN_LABEL_PX or len(node.name) <= 2)
        )
        if labelled or status or is_interactive(node) or is_focused(node) or not node.children:
            items.append(Drawn(node, status, box, labelled))
            if len(items) >= MAX_BOXES:
                break
    return items


LEGEND = (
    '<div class="awp-legend"><span class="awp-key awp-key-click">clickable</span>'
    '<span class="awp-key awp-key-focus">focused</span>'
    '<span class="awp-key awp-key-added">added</span>'
    '<span class="awp-key awp-key-updated">updated</span></div>'
)


def render_screen(tree: Tree, statuses: list[str]) -> str:
    """Draw the screen of `tree` (statuses align with `tree.nodes`); "" when nothing has bounds."""
    phone = tree.fmt in PHONE_FORMATS
    screen = find_screen(tree.nodes, from_origin=phone)
    if screen is None:
        return ""
    items = _drawn(tree, statuses, screen)
    hidden = covered([(i, item.box) for i, item in enumerate(items) if item.labelled])
    items = [replace(item, labelled=False) if i in hidden else item for i, item in enumerate(items)]
    room = rooms([(i, item.box) for i, item in enumerate(items) if item.labelled], screen)
    boxes = "".join(_box(item, screen, room.get(i)) for i, item in enumerate(items))
    shape = "portrait" if screen.portrait else "landscape"
    device = "phone" if phone else "desktop"
    return (
        f'<div class="awp-screen-wrap awp-screen-{shape} awp-screen-{device}">'
        '<div class="awp-bezel">'
        f'<div class="awp-screen" style="{screen.frame_style()}" role="img" '
        f'aria-label="Screen sketch, {screen.width}x{screen.height} pixels">{boxes}</div></div>'
        f"{LEGEND}</div>"
    )
