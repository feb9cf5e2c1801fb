"""The policy leaderboard as a picture: each agent's sim against live success, per domain.

Points on the diagonal are agents the simulator judges as reality does; the title carries each
domain's Spearman correlation and its bootstrap interval. Agents at the same point share one
label (`plot_labels`). Saved as `leaderboard.png` by `awp
rollout` and shown on the Rollouts page.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from backend.envs.sim.leaderboard import ALL, Leaderboard
from backend.envs.sim.plot_labels import label_points


def _interval(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "interval undefined"
    return f"95% [{low:.2f}, {high:.2f}]"


def board_figure(board: Leaderboard) -> Figure:
    """One panel per domain (and overall): sim success against live success per agent."""
    panels = board.agreement
    figure = Figure(figsize=(4.2 * len(panels), 4.2), layout="constrained")
    axes = figure.subplots(1, len(panels), squeeze=False)[0]
    for axis, agreement in zip(axes, panels, strict=True):
        scores = [s for s in board.scores if s.domain == agreement.domain]
        axis.plot([0, 1], [0, 1], color="#9e9e9e", linewidth=1, linestyle="--")
        points = [(s.sim_success, s.live_success, s.agent) for s in scores]
        label_points(axis, points, "#1f77b4")
        rho = "undefined" if agreement.spearman is None else f"{agreement.spearman:.2f}"
        name = "overall" if agreement.domain == ALL else agreement.domain
        axis.set_title(
            f"{name}: Spearman {rho}\n{_interval(agreement.low, agreement.high)}", fontsize=9
        )
        axis.set_xlim(-0.05, 1.05)
        axis.set_ylim(-0.05, 1.05)
        axis.set_xlabel("success in simulation")
        axis.set_ylabel("success live")
    return figure
