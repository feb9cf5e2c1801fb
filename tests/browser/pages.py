"""What a person does on each page, as Playwright steps (shared by the browser tests).

Every wait here is bounded and fails saying what the page showed: `WAIT_MS` (at most a minute)
for what needs no model, `MODEL_WAIT_MS` only where a model really decodes, still under pytest's
own 600-second timeout, so a wait that never ends is an assertion with the page's text rather
than a killed test.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ui.workspaces import WORKSPACES

WAIT_MS = 30_000
"""How long a browser test waits for something no model works on (the pages' default)."""
MODEL_WAIT_MS = 300_000
"""How long a wait may be for what a real model decodes (the tiny test model or the embedded
one) on a CPU that others share: minutes at worst, and half of pytest's timeout."""
SHOWN = (
    "([selector]) => { const el = document.querySelector(selector);"
    " return el === null ? null : String((el.value ?? el.innerText) || ''); }"
)
"""The text of the element a selector names (a field: its value), or null when there is none."""


def open_app(page, url: str) -> float:
    """Load the app on the Playground (a deep link); returns seconds until Step is visible."""
    started = time.perf_counter()
    page.goto(f"{url.rstrip('/')}/?tab=playground")
    page.locator("#pg-step").wait_for(state="visible")
    return time.perf_counter() - started


def choose(page, dropdown: str, option: str) -> None:
    """Pick `option` in the Gradio dropdown with element id `dropdown`."""
    page.locator(f"#{dropdown} input").click()
    page.get_by_role("option", name=option, exact=False).first.click()


def start_blank(page, domain: str, initial: str) -> None:
    """Start a blank Playground session in `domain` from `initial` and show that state."""
    choose(page, "pg-domain", domain)
    page.locator("#pg-source label", has_text="None (blank start)").click()
    page.get_by_label("Initial state (optional)").fill(initial)
    page.locator("#pg-blank").click()
    page.get_by_text("State before the step").click()


def open_tab(page, name: str) -> None:
    """Open the page titled `name`: its workspace's tab first, then the page's own tab.

    Waits for the page load first: it selects the tab a link names, and would undo a click.
    """
    wait_for_text(page, "#awp-user", "role:")
    space = next(w for w in WORKSPACES if name in (t for t, _ in w.pages) or name == w.title)
    page.get_by_role("tab", name=space.title, exact=True).click()
    if len(space.pages) > 1 and name != space.title:
        page.get_by_role("tab", name=name, exact=True).click()


def shown(page, selector: str, limit: int = 600) -> str:
    """What the element `selector` shows now, in short (or that there is none), for a failure."""
    text = page.evaluate(SHOWN, [selector])
    if text is None:
        return f"{selector}: (no such element)"
    flat = " ".join(text.split())
    return f"{selector}: {flat[:limit]!r}{' ...' if len(flat) > limit else ''}"


def wait_for_text(page, selector: str, text: str, timeout_ms: int = WAIT_MS) -> None:
    """Wait until the element's text (or a field's value) contains `text`.

    Raises:
        AssertionError: it did not within `timeout_ms`; the message says what it showed.
    """
    wait_until(
        page,
        "([selector, text]) => { const el = document.querySelector(selector);"
        " return ((el?.value ?? el?.innerText) || '').includes(text); }",
        f"{selector} to show {text!r}",
        [selector],
        timeout_ms,
        arg=[selector, text],
    )


def wait_until(
    page,
    predicate: str,
    what: str,
    watch: Sequence[str],
    timeout_ms: int = WAIT_MS,
    arg: object = None,
) -> None:
    """Wait until the page's JavaScript `predicate` (given `arg`) holds.

    Raises:
        AssertionError: it did not within `timeout_ms`; the message names `what` was awaited
            and says what the elements `watch` names showed instead.
    """
    try:
        page.wait_for_function(predicate, arg=arg, timeout=timeout_ms)
    except PlaywrightTimeout:
        seen = "; ".join(shown(page, other) for other in watch) or "nothing watched"
        raise AssertionError(
            f"Waited {timeout_ms / 1000:.0f} s for {what}; the page showed {seen}"
        ) from None


def wait_for_element(
    page, selector: str, watch: Sequence[str] = (), timeout_ms: int = WAIT_MS
) -> None:
    """Wait until an element `selector` names is visible.

    Raises:
        AssertionError: it was not within `timeout_ms`; the message says what the elements
            `watch` names (where the page says how its work went) showed instead.
    """
    try:
        page.locator(selector).first.wait_for(state="visible", timeout=timeout_ms)
    except PlaywrightTimeout:
        seen = "; ".join(shown(page, other) for other in watch) or "nothing watched"
        raise AssertionError(
            f"Waited {timeout_ms / 1000:.0f} s for {selector}; the page showed {seen}"
        ) from None


def step(page) -> None:
    """Press Step and wait until the step is stored."""
    page.locator("#pg-step").click()
    wait_for_text(page, "#pg-status", "Stored as prediction")


def rate(page, ratings: dict[str, str]) -> None:
    for name, value in ratings.items():
        page.locator(f"#an-rate-{name} label", has_text=value).first.click()
