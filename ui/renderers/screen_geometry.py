"""Where a screen sketch goes: the region the bounds cover, percent placement, label room.

Pure geometry in device pixels (the observation's own coordinates) and the CSS pixels the sketch
is usually drawn at, kept apart from what the boxes mean (`ui.renderers.screen`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from backend.scoring.nodes import Bounds, Node

MAX_SCREEN = 10_000
"""Bounds beyond this many pixels are not on a real screen and are left out."""
PHONE_WIDTH_PX = 300
"""CSS width of a portrait screen (see `.awp-screen-portrait`); used to size wrapped labels."""
DESKTOP_WIDTH_PX = 520
"""Typical CSS width of a landscape screen in one of two side-by-side panels."""
MIN_HEIGHT_PX = 30
"""Least height of a drawn screen, so one row of labels always fits."""
LINE_PX = 13
"""Line height of a label (see `.awp-el-label`)."""
MAX_ROOM_LABELS = 600
"""Above this many labels, overlaps are not resolved (the search is quadratic)."""


@dataclass(frozen=True)
class Screen:
    """The drawn area in device pixels: the region the boxes cover, cut at the screen's origin.

    Drawing the covered region rather than the whole display makes a desktop pop-up or side
    panel large enough to read; predicted and real states of the same screen cover the same
    region, so they are still drawn at the same scale. Phones start at the corner (0, 0).
    """

    left: int
    top: int
    right: int
    bottom: int

    @property
    def width(self) -> int:
        """Width in device pixels."""
        return self.right - self.left

    @property
    def height(self) -> int:
        """Height in device pixels."""
        return self.bottom - self.top

    @property
    def portrait(self) -> bool:
        """A phone held upright; drawn at a fixed width, landscape screens at full width."""
        return self.height > self.width

    @property
    def strip_width(self) -> int:
        """The CSS width at which the screen is MIN_HEIGHT_PX tall."""
        return -(-MIN_HEIGHT_PX * self.width // self.height)

    @property
    def css_width(self) -> int:
        """The CSS width the screen is usually drawn at."""
        return PHONE_WIDTH_PX if self.portrait else max(DESKTOP_WIDTH_PX, self.strip_width)

    def clip(self, box: Bounds) -> Bounds | None:
        """The part of `box` on the screen; None when none of it is or it is empty."""
        x1, y1 = max(box[0], self.left), max(box[1], self.top)
        x2, y2 = min(box[2], self.right), min(box[3], self.bottom)
        return (x1, y1, x2, y2) if x2 > x1 and y2 > y1 else None

    def lines(self, box: Bounds) -> int:
        """How many label lines fit the box's height at the usual drawing width (1 to 20)."""
        return min(20, max(1, self.css_px(box[3] - box[1]) // LINE_PX))

    def css_px(self, device_px: int) -> int:
        """A length in device pixels as CSS pixels at the usual drawing width."""
        return device_px * self.css_width // self.width

    def device_px(self, css_px: int) -> int:
        """A length in CSS pixels at the usual drawing width as device pixels."""
        return css_px * self.width // self.css_width

    def frame_style(self) -> str:
        """The screen's shape; a strip (a taskbar) keeps a readable height and scrolls sideways."""
        strip = not self.portrait and self.strip_width > DESKTOP_WIDTH_PX
        wide = f";min-width:{self.strip_width}px" if strip else ""
        return f"aspect-ratio:{self.width}/{self.height}{wide}"

    def style(self, box: Bounds) -> str:
        """Percent position and size."""
        x1, y1, x2, y2 = box
        return (
            f"left:{100 * (x1 - self.left) / self.width:.2f}%;"
            f"top:{100 * (y1 - self.top) / self.height:.2f}%;"
            f"width:{100 * (x2 - x1) / self.width:.2f}%;height:{100 * (y2 - y1) / self.height:.2f}%"
        )


def find_screen(nodes: Sequence[Node], from_origin: bool = False) -> Screen | None:
    """The region the bounds cover; None when no node has usable bounds on a screen.

    Off-screen parts (negative coordinates, e.g. content scrolled out or a maximised window's
    border) are cut, and absurd coordinates are ignored rather than shrinking everything else.

    Args:
        nodes: the tree's nodes.
        from_origin: start the region at the screen's corner (0, 0). A phone dump of a dialog
            alone is then drawn at the scale of the full-screen dump it is compared with.
    """
    boxes = [
        box
        for node in nodes
        if (box := node.bounds)
        and box[2] > max(box[0], 0)
        and box[3] > max(box[1], 0)
        and box[2] <= MAX_SCREEN
        and box[3] <= MAX_SCREEN
    ]
    if not boxes:
        return None
    left = 0 if from_origin else max(0, min(box[0] for box in boxes))
    top = 0 if from_origin else max(0, min(box[1] for box in boxes))
    return Screen(left, top, max(box[2] for box in boxes), max(box[3] for box in boxes))


Label = tuple[int, Bounds]
"""A drawn label: its item's index (document order; later ones lie on top) and its box."""


def covered(labels: Sequence[Label]) -> set[int]:
    """Indices of labels with a later label inside their box, which would print over them.

    A search field named "Search box, Find a setting" holds the text "Find a setting": the
    later one is drawn on top, so it keeps its label and the other is left to the tooltip.
    Quadratic, so nothing is dropped past MAX_ROOM_LABELS labels.
    """
    if len(labels) > MAX_ROOM_LABELS:
        return set()
    return {
        i
        for i, (x1, y1, x2, y2) in labels
        if any(j > i and o[0] >= x1 and o[1] >= y1 and o[2] <= x2 and o[3] <= y2 for j, o in labels)
    }


def rooms(labels: Sequence[Label], screen: Screen) -> dict[int, int]:
    """How far right (device px) each one-line label may run before it meets another label.

    A label wider than its box (an 11px font on a screen drawn at 40%) runs on into empty space
    instead of being cut to "Fo…". Quadratic, so only for the labels of a screen of usual size.
    """
    if len(labels) > MAX_ROOM_LABELS:
        return {}
    found: dict[int, int] = {}
    line = screen.device_px(LINE_PX)
    for i, (x1, y1, x2, y2) in labels:
        top, bottom = min(y1, (y1 + y2 - line) // 2), max(y2, (y1 + y2 + line) // 2)
        ahead = [o[0] for j, o in labels if j != i and o[0] > x1 and o[1] < bottom and o[3] > top]
        found[i] = max(x2, min([screen.right, *ahead]))
    return found
