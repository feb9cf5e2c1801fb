"""The web app with the embedded model, in Chromium: page load, click to first token, N users.

Page load is until the Step button is usable; first token is from the Step click until the
first predicted text shows (cold: the model loads on first use; then warm). Then N browser
tabs press Step at once: the embedded engine generates one request at a time (the simulate
queue has concurrency 1), so the tabs are served in turn, and the last one shows its place in
the queue meanwhile. Figures are whole-step wall times on this machine; quote medians.

Usage: PYTHONPATH=. python benchmarks/bench_ui.py [--users 10] [--tokens 16] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.browser.conftest import ARGS, CHROMIUM, VIEWPORT
from tests.browser.pages import open_app
from tests.support.app_server import start_app

PREPARED = Path(os.environ.get("AWP_DATA_DIR", Path.home() / ".agentworld")) / "models"
STEP_TIMEOUT_MS = 900_000
STORED = "document.querySelector('#pg-status').innerText.includes('Stored as prediction')"
FIRST_TOKEN_JS = """
() => new Promise((resolve) => {
  const pane = document.querySelector('#pg-predicted');
  const start = performance.now();
  const seen = () => {
    const text = (pane.querySelector('.awp-obs pre')?.innerText || '').trim();
    return text !== '' && text !== '…';
  };
  new MutationObserver((_, observer) => {
    if (seen()) { observer.disconnect(); resolve(performance.now() - start); }
  }).observe(pane, {childList: true, subtree: true, characterData: true});
  document.querySelector('#pg-step').click();
})
"""


def first_token(browser, url: str) -> tuple[list[float], float, float]:
    """Three page loads, then the cold and the warm click-to-first-token in seconds."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(STEP_TIMEOUT_MS)
    loads = [open_app(page, url) for _ in range(3)]
    cold = page.evaluate(FIRST_TOKEN_JS) / 1000
    page.wait_for_function(STORED)
    open_app(page, url)
    warm = page.evaluate(FIRST_TOKEN_JS) / 1000
    page.wait_for_function(STORED)
    context.close()
    return loads, cold, warm


def concurrent(browser, url: str, users: int) -> tuple[list[float], str]:
    """Seconds until each of `users` tabs, all pressing Step at once, had its step stored."""
    contexts = [browser.new_context(viewport=VIEWPORT) for _ in range(users)]
    pages = [context.new_page() for context in contexts]
    for page in pages:
        page.set_default_timeout(STEP_TIMEOUT_MS)
        open_app(page, url)
    started = time.perf_counter()
    for page in pages:
        page.locator("#pg-step").click()
    last = pages[-1].locator("#pg-predicted")
    last.get_by_text("queue", exact=False).first.wait_for()
    queued = last.inner_text()
    done = []
    for page in pages:
        page.wait_for_function(STORED)
        done.append(time.perf_counter() - started)
    for context in contexts:
        context.close()
    return sorted(done), queued


def main() -> None:
    """Print page load, first-token and concurrent-users figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--tokens", type=int, default=16)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()
    data = Path(tempfile.mkdtemp())
    (data / "models").symlink_to(PREPARED, target_is_directory=True)
    app = start_app(data, engine="transformers", settings={"max_new_tokens": options.tokens})
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=ARGS
            )
            loads, cold, warm = first_token(browser, app.url)
            done, queued = concurrent(browser, app.url, options.users)
            browser.close()
    finally:
        app.close()
    figures = {
        "page_load_s_median": statistics.median(loads),
        "first_token_s": {"cold": cold, "warm": warm},
        "users": options.users,
        "tokens_per_step": options.tokens,
        "stored_after_s": done,
        "last_tab_showed": queued.splitlines()[0] if queued else "",
    }
    print(json.dumps(figures, indent=2))
    if options.json:
        options.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
