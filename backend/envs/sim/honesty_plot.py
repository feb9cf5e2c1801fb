"""The honesty meter as a picture: the 2x2 per task, and simulated against real reward.

One figure, two panels, drawn on a bare matplotlib Figure (no pyplot, no display): `awp rollout
--sim-to-real` saves it as `honesty.png` beside `summary.json`, and the Rollouts page shows it.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from backend.envs.sim.honesty import SIM_PASS_REAL_FAIL, HonestyMeter
from backend.envs.sim.plot_labels import label_points

CELLS = (
    ("both_pass", "passes in both", "#2e7d32"),
    ("sim_pass_real_fail", SIM_PASS_REAL_FAIL, "#c62828"),
    ("sim_fail_real_pass", "fails in simulation, passes in reality", "#f9a825"),
    ("both_fail", "fails in both", "#546e7a"),
    ("unknown", "unknown", "#cfd8dc"),
)


def meter_figure(meter: HonestyMeter) -> Figure:
    """Stacked outcome bars per task (overall first), and a sim-vs-real reward scatter."""
    rows = [meter.overall, *meter.tasks]
    figure = Figure(figsize=(11, 3.6 + 0.3 * len(rows)), layout="constrained")
    bars, scatter = figure.subplots(1, 2, width_ratios=[3, 2])
    names = [row.task for row in rows]
    left = [0.0] * len(rows)
    for field, label, colour in CELLS:
        counts = [float(getattr(row.outcomes, field)) for row in rows]
        bars.barh(names, counts, left=left, color=colour, label=label)
        left = [a + b for a, b in zip(left, counts, strict=True)]
    bars.invert_yaxis()
    bars.set_xlabel("episodes")
    bars.set_title("Simulated against real outcome (the task's check)")
    bars.xaxis.get_major_locator().set_params(integer=True)
    bars.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3)
    points = [r for r in meter.tasks if r.sim_reward is not None and r.real_reward is not None]
    scatter.plot([0, 1], [0, 1], color="#9e9e9e", linewidth=1, linestyle="--")
    label_points(
        scatter, [(r.sim_reward or 0.0, r.real_reward or 0.0, r.task) for r in points], "#1565c0"
    )
    scatter.set_xlim(-0.05, 1.05)
    scatter.set_ylim(-0.05, 1.05)
    scatter.set_xlabel("simulated reward")
    scatter.set_ylabel("real reward")
    scatter.set_title("Mean episode reward per task")
    return figure
