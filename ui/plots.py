"""A plot with its empty state: the chart when there is data, a line saying why when there is not.

Every chart of the app (the arena's ratings, a benchmark's per-domain chart, the loss curve, the
honesty meter and leaderboard) is a `PlotSlot`: Gradio draws an empty plot as blank axes or a
broken-image icon, so the slot hides the chart and shows `ui.views.empty_plot` in its place
until something can be drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr
import pandas as pd

from ui.views import empty_plot


@dataclass(frozen=True)
class PlotSlot:
    """A chart component and the note that stands in for it while it has nothing to draw.

    Attributes:
        plot: the chart (a `gr.Plot`, `gr.LinePlot` or `gr.Image`).
        note: the empty-state line, shown instead of the chart.
        title: what the chart shows, named in the empty state.
        message: why it is empty and what fills it.
    """

    plot: Any
    note: gr.HTML
    title: str
    message: str

    @property
    def parts(self) -> list[Any]:
        """The components an update names, chart first."""
        return [self.plot, self.note]

    def show(self, value: Any, message: str | None = None) -> dict[Any, Any]:
        """The chart with `value`, or the empty state when there is nothing to draw.

        Args:
            value: a figure, a data frame or an image path; None or an empty frame is empty.
            message: why it is empty this time (the slot's own message when None).
        """
        drawn = not blank(value)
        return {
            self.plot: gr.update(value=value if drawn else None, visible=drawn),
            self.note: gr.HTML(empty_plot(self.title, message or self.message), visible=not drawn),
        }


def blank(value: Any) -> bool:
    """Whether `value` has nothing to draw."""
    if isinstance(value, pd.DataFrame):
        return value.empty
    return value is None or value == ""


def render(make: Callable[..., Any], title: str, message: str, **kwargs: Any) -> PlotSlot:
    """Build `make(label=title, visible=False, **kwargs)` with its empty state shown under it."""
    plot = make(label=title, visible=False, **kwargs)
    elem = kwargs.get("elem_id")
    note = gr.HTML(empty_plot(title, message), elem_id=f"{elem}-empty" if elem else None)
    return PlotSlot(plot, note, title, message)
