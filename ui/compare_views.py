"""HTML, tables and charts of the compare-and-agree pages; pure functions over plain data.

Both candidates of a comparison are rendered by the domain's own renderer, at the same width,
each with the state before the action as `previous` (so tree views mark changes alike), and
nothing on a blind side names what made it.
"""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from backend.compare.bradley_terry import Rating
from backend.compare.report import ALL, ArenaReport
from storage.arena_items import StepContext
from ui.renderers import render
from ui.renderers.base import esc
from ui.views import empty, short, task_html

HISTORY_SHOWN = 6
RATE_HEADERS = [
    "model",
    "domain",
    "indistinguishable",
    "95% interval",
    "votes",
    "fooled",
    "can't tell",
    "spotted",
]
BOARD_HEADERS = ["rank", "contender", "rating", "95% interval", "votes", "won"]


def context_html(context: StepContext, renderer: str) -> str:
    """The task, the last actions, the state before the action, and the action."""
    parts = [f'<div class="awp-caption"><b>Domain</b> {esc(context.domain)}</div>']
    if context.task:
        parts.append(task_html(context.task))
    if context.history:
        shown = context.history[-HISTORY_SHOWN:]
        skipped = len(context.history) - len(shown)
        items = "".join(f"<li><code>{esc(short(t.action))}</code></li>" for t in shown)
        more = f"<div class='awp-note'>{skipped} earlier actions not shown</div>" if skipped else ""
        title = f"History: {len(context.history)} earlier actions"
        parts.append(
            f"<details><summary>{title}</summary>{more}<ol start='{skipped + 1}'>{items}</ol>"
            "</details>"
        )
    parts.append(
        "<details><summary>State before the action</summary>"
        f"{render(renderer, context.previous)}</details>"
    )
    parts.append(f'<div class="awp-caption"><b>Action</b> <code>{esc(context.action)}</code></div>')
    return "".join(parts)


def sides_html(first: str, second: str, renderer: str, previous: str | None) -> str:
    """Candidates A and B side by side, rendered natively at the same size."""
    panes = "".join(
        f'<div class="awp-pane"><div class="awp-pane-title">{label}</div>'
        f"{render(renderer, text, previous)}</div>"
        for label, text in (("A", first), ("B", second))
    )
    return f'<div class="awp-split awp-versus">{panes}</div>'


def percent(value: float | None) -> str:
    """A share as a whole percentage ("-" when unknown)."""
    return "-" if value is None else f"{value:.0%}"


def rate_rows(report: ArenaReport, source: str = "human") -> list[list[Any]]:
    """Indistinguishability per model and domain, `all` first for each model."""
    rows = [
        [
            r.model,
            r.domain,
            percent(r.rate.rate),
            f"{percent(r.rate.low)}-{percent(r.rate.high)}",
            r.rate.votes,
            r.rate.fooled,
            r.rate.cannot_tell,
            r.rate.spotted,
        ]
        for r in report.real
        if r.source == source
    ]
    return rows or [["no votes yet", "", "", "", 0, 0, 0, 0]]


def board_rows(ratings: list[Rating]) -> list[list[Any]]:
    """A leaderboard table, best first."""
    rows = [
        [r.rank, r.contender, round(r.rating), f"{r.low:.0f}-{r.high:.0f}", r.votes, r.wins]
        for r in ratings
    ]
    return rows or [["", "no votes yet", "", "", 0, 0]]


def board_chart(report: ArenaReport, domain: str = ALL) -> Figure | None:
    """Ratings with their 95% intervals, people's and the judge's, best contender on top.

    None while nobody has voted in `domain`: there is nothing to draw.
    """
    people = report.leaderboard(domain, "human")
    judge = report.leaderboard(domain, "judge")
    order = [r.contender for r in reversed(people.ratings)] if people else []
    if judge:
        order += [r.contender for r in judge.ratings if r.contender not in order]
    if not order:
        return None
    figure = Figure(figsize=(8, 3.4), dpi=100)
    axis = figure.add_subplot()
    for offset, board, colour in ((0.15, people, "#2563eb"), (-0.15, judge, "#f59e0b")):
        if board is None:
            continue
        ys = [order.index(r.contender) + offset for r in board.ratings]
        xs = [r.rating for r in board.ratings]
        errors = [
            [r.rating - r.low for r in board.ratings],
            [r.high - r.rating for r in board.ratings],
        ]
        label = f"{'people' if board.source == 'human' else 'LLM judge'} ({board.votes} votes)"
        axis.errorbar(xs, ys, xerr=errors, fmt="o", color=colour, capsize=4, label=label)
    axis.set_yticks(range(len(order)), [short(name, 40) for name in order], fontsize=8)
    axis.axvline(1000, color="#9ca3af", linewidth=0.8, linestyle=":")
    axis.set_xlabel("Bradley-Terry rating (Elo scale; whiskers: bootstrap 95% interval)")
    axis.set_title(f"Arena leaderboard: {domain}", fontsize=10)
    axis.legend(loc="lower right", fontsize=8, frameon=False)
    figure.tight_layout()
    return figure


def reveal_html(lines: list[str], tone: str = "") -> str:
    """What a vote revealed."""
    body = "".join(f"<div>{line}</div>" for line in lines)
    return f'<div class="awp-reveal awp-reveal-{tone}">{body}</div>' if lines else empty("")
