"""What a person does on each page, as Playwright steps (shared by the browser tests)."""

from __future__ import annotations

import time

from ui.workspaces import WORKSPACES


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


def wait_for_text(page, selector: str, text: str, timeout_ms: int = 30_000) -> None:
    """Wait until the element's text (or a field's value) contains `text`."""
    page.wait_for_function(
        "([selector, text]) => { const el = document.querySelector(selector);"
        " return ((el?.value ?? el?.innerText) || '').includes(text); }",
        arg=[selector, text],
        timeout=timeout_ms,
    )


def step(page) -> None:
    """Press Step and wait until the step is stored."""
    page.locator("#pg-step").click()
    wait_for_text(page, "#pg-status", "Stored as prediction")


def rate(page, ratings: dict[str, str]) -> None:
    for name, value in ratings.items():
        page.locator(f"#an-rate-{name} label", has_text=value).first.click()
