"""Labels of scatter points that never overlap where several names share a point.

Agents or tasks often land on the same (sim, live) point (every agent at 0 against 0, say):
annotated one by one, their names print over each other and none can be read. Points that
share a position are drawn once, with every name at it listed in one label, and labels near
the right or top edge are placed inward so they stay inside the panel.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.axes import Axes

MAX_NAMES = 8
"""Names listed at one point before the label says how many more share it."""


def shared_points(points: Sequence[tuple[float, float, str]]) -> list[tuple[float, float, str]]:
    """The distinct positions, each with the names at it (in order, one a line)."""
    grouped: dict[tuple[float, float], list[str]] = {}
    for x, y, name in points:
        grouped.setdefault((round(x, 3), round(y, 3)), []).append(name)
    labelled = []
    for (x, y), names in grouped.items():
        shown = names[:MAX_NAMES]
        if len(names) > MAX_NAMES:
            shown.append(f"(+{len(names) - MAX_NAMES} more)")
        labelled.append((x, y, "\n".join(shown)))
    return labelled


def label_points(axis: Axes, points: Sequence[tuple[float, float, str]], colour: str) -> None:
    """Scatter `points` (x, y, name) on `axis`, one marker and one label per position."""
    for x, y, label in shared_points(points):
        count = label.count("\n") + 1
        axis.scatter([x], [y], color=colour, s=30 + 12 * (count - 1), zorder=3)
        right, top = x > 0.6, y > 0.6
        axis.annotate(
            label,
            (x, y),
            xytext=(-6 if right else 6, -6 if top else 6),
            textcoords="offset points",
            ha="right" if right else "left",
            va="top" if top else "bottom",
            fontsize=7,
        )
