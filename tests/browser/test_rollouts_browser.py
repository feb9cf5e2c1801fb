"""The Rollouts page: run replay episodes in the world model and open one step by step."""

from __future__ import annotations

import pytest

from tests.browser.pages import choose, open_app, open_tab, wait_for_text
from tests.support.app_server import RunningApp

pytestmark = pytest.mark.browser


def test_run_a_rollout_and_open_a_step(page, app: RunningApp, shot) -> None:
    open_app(page, app.url)
    open_tab(page, "Rollouts")
    choose(page, "ro-domain", "terminal")
    choose(page, "ro-engine", "oracle")
    page.locator("#ro-run").click()
    wait_for_text(page, "#ro-status", "Finished 2 sim episode(s)", 60_000)
    summary = page.locator("#ro-summary").inner_text()
    assert "terminal\n2\n5\n5\n0\n1" in summary  # 2 episodes, 5 steps, fidelity 1
    page.locator("#ro-step input").fill("2")
    page.locator("#ro-step input").press("Enter")
    wait_for_text(page, "#ro-action", "keystrokes")
    # The oracle predicts the recorded screen: predicted and real panels show the same text.
    predicted = page.locator("#ro-predicted").inner_text()
    assert predicted.strip() and predicted == page.locator("#ro-real").inner_text()
    assert "2" in page.locator("#ro-steps").inner_text()
    shot(page, "rollouts")
