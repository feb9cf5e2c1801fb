"""Model arena: two contenders predict the same action; people vote without knowing which is which.

A battle shows one recorded step and two predictions as A and B; the person votes A, B, tie or
both bad, and then sees who was who. The leaderboard (Bradley-Terry ratings with bootstrap 95%
intervals, per domain and overall, people's votes and the LLM judge's on the same battles)
updates with every vote.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.compare.report import ALL, ArenaReport
from backend.domains.base import all_domains, get_domain
from backend.errors import BadInputError
from backend.jobs import Job
from storage.arena_items import ArenaPair
from ui import plots
from ui.arena import Arena
from ui.compare_views import (
    BOARD_HEADERS,
    board_chart,
    board_rows,
    context_html,
    percent,
    reveal_html,
    sides_html,
)
from ui.errors import inline
from ui.pages import job_panel
from ui.pages.annotate import BROWSER_KEY, BROWSER_SECRET
from ui.renderers.base import esc
from ui.services import Services
from ui.users import browser_key
from ui.views import empty

OUTCOMES = (("A is better", "a"), ("B is better", "b"), ("Tie", "tie"), ("Both bad", "both_bad"))


@dataclass(frozen=True)
class ArenaPage:
    """The page's components."""

    state: gr.State
    browser: gr.BrowserState
    domain: gr.Dropdown
    battle: gr.Button
    job: job_panel.JobPanel
    context: gr.HTML
    sides: gr.HTML
    votes: dict[str, gr.Button]
    message: gr.HTML
    reveal: gr.HTML
    board_domain: gr.Dropdown
    people: gr.Dataframe
    judge: gr.Dataframe
    chart: plots.PlotSlot
    agreement: gr.Markdown

    @property
    def board(self) -> list[Any]:
        """The leaderboard components."""
        return [self.people, self.judge, *self.chart.parts, self.agreement]

    @property
    def shown(self) -> list[Any]:
        """What a new battle and a vote may update; each names the ones it changes."""
        return [
            self.state,
            self.browser,
            self.context,
            self.sides,
            self.reveal,
            *self.board,
            self.message,
            *self.votes.values(),
        ]


def render(services: Services) -> ArenaPage:
    """Build the page (inside the caller's Tab)."""
    domains = [("All domains", "")] + [(d.title, d.name) for d in all_domains()]
    browser = gr.BrowserState("", storage_key=BROWSER_KEY, secret=BROWSER_SECRET)
    names = ", ".join(f"`{c.spec}`" for c in services.contenders)
    gr.Markdown(
        "Two world models predict the same action. Vote for the better prediction without "
        f"knowing which model made it; the names appear after your vote. Contenders: {names}."
    )
    with gr.Row(equal_height=True):
        domain = gr.Dropdown(domains, value="", label="Domain", scale=2, elem_id="ar-domain")
        battle = gr.Button("New battle", variant="primary", scale=1, elem_id="ar-battle")
    job = job_panel.render("ar", "battle", "arena")
    context = gr.HTML(empty("Press New battle."), elem_id="ar-context")
    sides = gr.HTML(elem_id="ar-sides")
    with gr.Row():
        # Enabled by a new battle, disabled again by the vote: one vote per battle.
        votes = {
            outcome: gr.Button(label, elem_id=f"ar-vote-{outcome}", interactive=False)
            for label, outcome in OUTCOMES
        }
    message = gr.HTML(elem_id="ar-message")
    reveal = gr.HTML(elem_id="ar-reveal")
    with gr.Accordion("Leaderboard", open=True):
        boards = [("All domains", ALL)] + [(d.title, d.name) for d in all_domains()]
        board_domain = gr.Dropdown(boards, value=ALL, label="Leaderboard of", elem_id="ar-board")
        with gr.Row(equal_height=False):
            people = gr.Dataframe(
                headers=BOARD_HEADERS,
                interactive=False,
                label="People's votes",
                elem_id="ar-people",
            )
            judge = gr.Dataframe(
                headers=BOARD_HEADERS,
                interactive=False,
                label="LLM judge's votes (awp arena judge)",
                elem_id="ar-judge",
            )
        chart = plots.render(
            gr.Plot,
            "Ratings",
            "No votes yet: vote on a battle to rate its two contenders.",
            elem_id="ar-chart",
        )
        agreement = gr.Markdown(elem_id="ar-agreement")
    return ArenaPage(
        gr.State(None),
        browser,
        domain,
        battle,
        job,
        context,
        sides,
        votes,
        message,
        reveal,
        board_domain,
        people,
        judge,
        chart,
        agreement,
    )


def board_values(
    page: ArenaPage, report: ArenaReport, domain: str
) -> dict[gr.components.Component, Any]:
    """The leaderboard of `domain`: people's table, the judge's, the chart, their agreement.

    Args:
        page: the page whose leaderboard components the updates name.
        report: the ratings of every contender.
        domain: a domain name, or `ALL`.
    """
    people = report.leaderboard(domain, "human")
    judge = report.leaderboard(domain, "judge")
    same = next((row for row in report.judge_vs_people if row.domain == domain), None)
    line = (
        f"The judge picked what people picked on **{percent(same.share)}** of {same.pairs} "
        "battles both decided."
        if same is not None
        else "No battle has both a person's and the judge's vote yet."
    )
    return {
        page.people: board_rows(people.ratings if people else []),
        page.judge: board_rows(judge.ratings if judge else []),
        **page.chart.show(board_chart(report, domain)),
        page.agreement: line,
    }


def _show(page: ArenaPage, pair: ArenaPair) -> dict[gr.components.Component, Any]:
    """The battle's history, action and the two blind predictions."""
    renderer = get_domain(pair.context.domain).renderer
    return {
        page.context: context_html(pair.context, renderer),
        page.sides: sides_html(pair.first, pair.second, renderer, pair.context.previous),
    }


def reveal_lines(pair: ArenaPair, outcome: str) -> list[str]:
    """Who was who, and what the person voted."""
    label = dict((value, text) for text, value in OUTCOMES)[outcome]
    return [
        f"You voted <b>{esc(label)}</b>.",
        f"<b>A</b> was <b>{esc(pair.contender_a)}</b>; <b>B</b> was "
        f"<b>{esc(pair.contender_b)}</b>.",
    ]


def votes_enabled(page: ArenaPage, enabled: bool) -> dict[gr.components.Component, Any]:
    """The vote buttons on (a battle waits for its vote) or off (voted, or no battle)."""
    return {button: gr.Button(interactive=enabled) for button in page.votes.values()}


def wire(page: ArenaPage, services: Services) -> None:
    """Bind the page's events."""
    arena = Arena(services)
    _wire_battle(page, services, arena)
    _wire_votes(page, services, arena)


def who(services: Services, browser: str | None, request: gr.Request) -> tuple[str, str]:
    """Who acts (the server's identity) and the browser's key (kept for the page only)."""
    key = browser_key(browser, request)
    return services.identify(request, individual=True).name, key


def _wire_battle(page: ArenaPage, services: Services, arena: Arena) -> None:
    """New battle: a job that draws a pair of contenders' predictions, then shows it."""

    def new_battle(domain: str, board: str, request: gr.Request, browser: str | None = None) -> Job:
        name, key = who(services, browser, request)

        def draw(job: Job) -> tuple[ArenaPair, str, str]:
            return arena.next_battle(name, domain or None), key, board

        # The total is the two contenders' budgets, known once they are drawn (`Arena.fresh`).
        return services.jobs.submit("battle", name, "New battle", draw)

    def show(result: tuple[ArenaPair, str, str]) -> dict[gr.components.Component, Any]:
        pair, key, board = result
        return {
            page.state: pair,
            page.browser: key,
            **_show(page, pair),
            page.reveal: "",
            **board_values(page, arena.report(), board or ALL),
            **votes_enabled(page, True),
        }

    job_panel.wire(
        page.job,
        services,
        page.battle,
        new_battle,
        [page.domain, page.board_domain],
        show,
        page.shown,
        api_name="arena_battle",
        inputs_kwargs={"browser": page.browser},
    )


def _wire_votes(page: ArenaPage, services: Services, arena: Arena) -> None:
    """The votes on the battle shown (then who was who), and the leaderboard of a domain."""

    def leaderboard(domain: str) -> dict[gr.components.Component, Any]:
        return board_values(page, arena.report(), domain or ALL)

    def vote(
        outcome: str,
        pair: ArenaPair | None,
        board: str,
        request: gr.Request,
        browser: str | None = None,
    ) -> dict[gr.components.Component, Any]:
        if pair is None:
            raise BadInputError("Press New battle first.")
        name, key = who(services, browser, request)
        arena.vote(pair, name, outcome)
        # The battle stays on screen with who was who; New battle moves on.
        return {
            page.state: None,
            page.browser: key,
            page.reveal: reveal_html(reveal_lines(pair, outcome)),
            **leaderboard(board),
            **votes_enabled(page, False),
        }

    person: dict[str, Any] = {"browser": page.browser}

    def voter(outcome: str) -> Any:
        def vote_for(
            pair: ArenaPair | None, board: str, request: gr.Request, browser: str | None = None
        ) -> dict[gr.components.Component, Any]:
            return vote(outcome, pair, board, request, browser)

        return inline(vote_for, page.message)

    for outcome, button in page.votes.items():
        button.click(
            voter(outcome),
            [page.state, page.board_domain],
            page.shown,
            inputs_kwargs=person,
            api_name=f"arena_vote_{outcome}",
            concurrency_limit=None,
        )
    page.board_domain.change(
        inline(leaderboard, page.message),
        [page.board_domain],
        [*page.board, page.message],
        api_name="arena_board",
        concurrency_limit=None,
    )
