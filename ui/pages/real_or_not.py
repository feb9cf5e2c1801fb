"""Which one is real? The real next observation or a model's prediction, shown in random order.

The page shows one step's history and action, then both observations; the person picks the real
one (or can't tell), with a confidence.

The model's name and which side was real are revealed after the vote; the results table (the
indistinguishability rate per model and domain, 50% = people cannot tell) updates with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.domains.base import all_domains, get_domain
from backend.errors import BadInputError
from storage.arena_items import RealItem
from ui.arena import Arena
from ui.compare_views import (
    RATE_HEADERS,
    context_html,
    rate_rows,
    reveal_html,
    sides_html,
)
from ui.errors import inline
from ui.pages.annotate import BROWSER_KEY, BROWSER_SECRET
from ui.renderers.base import esc
from ui.services import Services
from ui.users import browser_key
from ui.views import empty

CHOICES = [("A is real", "A"), ("B is real", "B"), ("Can't tell", "cannot_tell")]
CONFIDENCE = [("Guessing", 1), ("Fairly sure", 2), ("Certain", 3)]


@dataclass(frozen=True)
class RealOrNotPage:
    """The page's components."""

    state: gr.State
    browser: gr.BrowserState
    domain: gr.Dropdown
    next: gr.Button
    context: gr.HTML
    sides: gr.HTML
    choice: gr.Radio
    confidence: gr.Radio
    vote: gr.Button
    message: gr.HTML
    reveal: gr.HTML
    results: gr.Dataframe

    @property
    def shown(self) -> list[Any]:
        """What `next` and `vote` may update; each names the ones it changes."""
        return [
            self.state,
            self.browser,
            self.context,
            self.sides,
            self.choice,
            self.confidence,
            self.reveal,
            self.results,
            self.message,
            self.vote,
        ]


def render(services: Services) -> RealOrNotPage:
    """Build the page (inside the caller's Tab)."""
    domains = [("All domains", "")] + [(d.title, d.name) for d in all_domains()]
    browser = gr.BrowserState("", storage_key=BROWSER_KEY, secret=BROWSER_SECRET)
    gr.Markdown(
        "One of the two observations below is what really happened after the action; the "
        "other is a world model's prediction. Pick the real one, or say you can't tell."
    )
    with gr.Row(equal_height=True):
        domain = gr.Dropdown(domains, value="", label="Domain", scale=2, elem_id="rn-domain")
        next_btn = gr.Button("Next item", variant="primary", scale=1, elem_id="rn-next")
    context = gr.HTML(empty("Press Next item."), elem_id="rn-context")
    sides = gr.HTML(elem_id="rn-sides")
    with gr.Row(equal_height=True):
        choice = gr.Radio(CHOICES, label="Which one is real?", elem_id="rn-choice", scale=2)
        confidence = gr.Radio(
            CONFIDENCE, label="How sure are you?", elem_id="rn-confidence", scale=2
        )
        # Enabled by Next item, disabled again by the vote: one vote per item.
        vote = gr.Button("Vote", variant="primary", elem_id="rn-vote", scale=1, interactive=False)
    message = gr.HTML(elem_id="rn-message")
    reveal = gr.HTML(elem_id="rn-reveal")
    with gr.Accordion("Results: indistinguishability per model and domain", open=True):
        gr.Markdown(
            "Share of votes that took the prediction for the real one, can't-tell counting "
            "half: **50% = indistinguishable from reality**, 0% = always spotted. Interval: "
            "Wilson 95%."
        )
        results = gr.Dataframe(headers=RATE_HEADERS, interactive=False, elem_id="rn-results")
    return RealOrNotPage(
        gr.State(None),
        browser,
        domain,
        next_btn,
        context,
        sides,
        choice,
        confidence,
        vote,
        message,
        reveal,
        results,
    )


def _show(page: RealOrNotPage, item: RealItem | None) -> dict[gr.components.Component, Any]:
    """The item's history, action and two sides; a hint when none is left."""
    if item is None:
        hint = empty("Nothing left for you to vote on here: try another domain.")
        return {page.context: hint, page.sides: ""}
    renderer = get_domain(item.context.domain).renderer
    first, second = item.sides
    return {
        page.context: context_html(item.context, renderer),
        page.sides: sides_html(first, second, renderer, item.context.previous),
    }


def reveal_lines(item: RealItem, choice: str) -> tuple[list[str], str]:
    """What the vote revealed, and its tone."""
    model = esc(f"{item.engine} · {item.model}")
    fake = "B" if item.real_side == "A" else "A"
    lines = [f"<b>{item.real_side}</b> was real; <b>{fake}</b> was predicted by <b>{model}</b>."]
    if choice == "cannot_tell":
        return [*lines, "You could not tell them apart."], ""
    if choice == item.real_side:
        return ["✓ You found the real one.", *lines], "good"
    return ["✗ The model fooled you.", *lines], "bad"


def wire(page: RealOrNotPage, services: Services) -> None:
    """Bind the page's events."""
    arena = Arena(services)

    def who(browser: str | None, request: gr.Request) -> tuple[str, str]:
        # The browser's key is kept for the page only: who votes is the server's identity.
        key = browser_key(browser, request)
        return services.identify(request, individual=True).name, key

    def results() -> list[list[Any]]:
        return rate_rows(arena.report())

    def next_item(
        domain: str, request: gr.Request, browser: str | None = None
    ) -> dict[gr.components.Component, Any]:
        name, key = who(browser, request)
        item = arena.next_real(name, domain or None)
        return {
            page.state: item,
            page.browser: key,
            **_show(page, item),
            page.choice: None,
            page.confidence: None,
            page.reveal: "",
            page.results: results(),
            page.vote: gr.Button(interactive=item is not None),
        }

    def vote(
        item: RealItem | None,
        choice: str | None,
        confidence: int | None,
        request: gr.Request,
        browser: str | None = None,
    ) -> dict[gr.components.Component, Any]:
        if item is None:
            raise BadInputError("Press Next item first (each item takes one vote).")
        if not choice:
            raise BadInputError("Pick A, B or can't tell before voting.")
        name, key = who(browser, request)
        services.arena.vote_real(item, name, choice, confidence)
        lines, tone = reveal_lines(item, choice)
        # The voted item, and the person's answer, stay on screen with the reveal; Next item
        # moves on.
        return {
            page.state: None,
            page.browser: key,
            page.reveal: reveal_html(lines, tone),
            page.results: results(),
            page.vote: gr.Button(interactive=False),
        }

    cheap: dict[str, Any] = {"concurrency_limit": None}
    person: dict[str, Any] = {"browser": page.browser}
    page.next.click(
        inline(next_item, page.message),
        [page.domain],
        page.shown,
        inputs_kwargs=person,
        api_name="real_next",
        **cheap,
    )
    page.vote.click(
        inline(vote, page.message),
        [page.state, page.choice, page.confidence],
        page.shown,
        inputs_kwargs=person,
        api_name="real_vote",
        **cheap,
    )
