"""The policy leaderboard as a picture: each agent's sim against live success, per domain.

Points on the diagonal are agents the simulator judges as reality does; the title carries each
domain's Spearman correlation and its bootstrap interval. Saved as `leaderboard.png` by `awp
rollout` and shown on the Rollouts page.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from backend.envs.sim.leaderboard import ALL, Leaderboard


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
        axis.scatter([s.sim_success for s in scores], [s.live_success for s in scores])
        for score in scores:
            axis.annotate(score.agent, (score.sim_success, score.live_success), fontsize=7)
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
