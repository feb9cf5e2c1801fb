"""The Rollouts page's honesty section: a stored run's honesty meter and policy leaderboard.

Sim-to-real runs (`awp rollout --sim-to-real`) keep their meter, and runs of several agents their
leaderboard, in the run's stored `summary.json`; this section reads them back from the run store
by run id and shows each as a table and a plot. The section starts folded, its tables hidden and
its plots saying why they are empty, until a run is shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.envs.sim.honesty import METER_HEADERS, SIM_PASS_REAL_FAIL, meter_table
from backend.envs.sim.honesty_plot import meter_figure
from backend.envs.sim.leaderboard import BOARD_HEADERS, RANK_HEADERS, board_table, rank_table
from backend.envs.sim.leaderboard_plot import board_figure
from ui import plots
from ui.errors import guarded
from ui.rollouts import Rollouts
from ui.services import Services

NO_METER = "No run shown yet: give the id of an awp rollout --sim-to-real run and press Show."
NO_BOARD = "No run shown yet: a run of several agents (awp rollout --agent a,b) ranks them."


@dataclass(frozen=True)
class HonestySection:
    """The section's components."""

    run_id: gr.Number
    show: gr.Button
    note: gr.Markdown
    meter: gr.Dataframe
    meter_plot: plots.PlotSlot
    board: gr.Dataframe
    ranks: gr.Dataframe
    board_plot: plots.PlotSlot


def render() -> HonestySection:
    """Draw the section (inside the caller's page)."""
    with gr.Accordion("Honesty meter and policy leaderboard", open=False, elem_id="ro-honesty"):
        gr.Markdown(
            "Does what passes in simulation pass in reality? A run made with "
            "`awp rollout --sim-to-real` replays each simulated episode live; the cell that "
            f"matters is **{SIM_PASS_REAL_FAIL}**."
        )
        with gr.Row():
            run_id = gr.Number(None, label="Run", precision=0, minimum=1, elem_id="ro-h-run")
            show = gr.Button("Show", elem_id="ro-h-show")
        note = gr.Markdown("", elem_id="ro-h-note")
        meter = gr.Dataframe(
            None,
            headers=METER_HEADERS,
            interactive=False,
            label="Honesty meter",
            wrap=True,
            visible=False,
            elem_id="ro-h-meter",
        )
        meter_plot = plots.render(gr.Plot, "Honesty meter", NO_METER, elem_id="ro-h-meter-plot")
        board = gr.Dataframe(
            None,
            headers=BOARD_HEADERS,
            interactive=False,
            label="Policy leaderboard",
            visible=False,
            elem_id="ro-h-board",
        )
        ranks = gr.Dataframe(
            None,
            headers=RANK_HEADERS,
            interactive=False,
            label="Do the simulator's rankings hold in reality?",
            visible=False,
            elem_id="ro-h-ranks",
        )
        board_plot = plots.render(
            gr.Plot, "Policy leaderboard", NO_BOARD, elem_id="ro-h-board-plot"
        )
    return HonestySection(run_id, show, note, meter, meter_plot, board, ranks, board_plot)


def wire(section: HonestySection, services: Services) -> None:
    """Bind the section's button to the run store."""
    rollouts = Rollouts(services)

    def show(run_id: float | None) -> dict[Any, Any]:
        meter, board, title = rollouts.honesty(int(run_id or 0))
        missing = []
        if meter is None:
            missing.append("no honesty meter (not a --sim-to-real run)")
        if board is None:
            missing.append("no leaderboard (one agent)")
        note = f"**{title}**" + (f": {'; '.join(missing)}." if missing else ".")
        ranks = rank_table(board) if board else None
        return {
            section.note: note,
            section.meter: gr.Dataframe(
                meter_table(meter) if meter else None, headers=METER_HEADERS, visible=bool(meter)
            ),
            **section.meter_plot.show(
                meter_figure(meter) if meter else None, f"{title} is not a --sim-to-real run."
            ),
            section.board: gr.Dataframe(
                board_table(board) if board else None, headers=BOARD_HEADERS, visible=bool(board)
            ),
            section.ranks: gr.Dataframe(ranks, headers=RANK_HEADERS, visible=bool(board)),
            **section.board_plot.show(
                board_figure(board) if board else None, f"{title} ran one agent: nothing to rank."
            ),
        }

    section.show.click(
        guarded(show),
        [section.run_id],
        [
            section.note,
            section.meter,
            *section.meter_plot.parts,
            section.board,
            section.ranks,
            *section.board_plot.parts,
        ],
        api_name="rollout_honesty",
        concurrency_limit=None,
    )
