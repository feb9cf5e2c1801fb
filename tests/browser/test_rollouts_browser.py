"""The Rollouts page: run replay episodes in the world model and open one step by step."""

from __future__ import annotations

import pytest

from storage.run_kinds import RolloutRun
from tests.browser.pages import choose, open_app, open_tab, wait_for_text, wait_until
from tests.support.app_server import RunningApp
from tests.support.cli import run
from tests.support.live import skip_unless_live

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
    # The oracle predicts the recorded screen: predicted and real panels come to show the same
    # text. The two panels are redrawn one after the other, so wait for them to agree rather than
    # read them at one instant.
    wait_until(
        page,
        "() => { const p = document.querySelector('#ro-predicted')?.innerText ?? '';"
        " return p.trim() !== '' && p === document.querySelector('#ro-real')?.innerText; }",
        "the predicted and real panels to agree",
        ["#ro-predicted", "#ro-real", "#ro-status"],
    )
    assert "2" in page.locator("#ro-steps").inner_text()
    past = page.locator("#ro-past").inner_text()  # the run is listed with how it ended
    assert "terminal" in past and "replay" in past and "finished" in past
    shot(page, "rollouts")


@skip_unless_live("terminal")
def test_shadow_rollout_shows_the_prediction_beside_the_live_screen(page, app, shot) -> None:
    open_app(page, app.url)
    open_tab(page, "Rollouts")
    choose(page, "ro-engine", "persistence")
    page.locator("#ro-env label", has_text="shadow").click()
    page.locator("#ro-episodes input").fill("1")
    page.locator("#ro-run").click()
    wait_for_text(page, "#ro-status", "Finished 1 shadow episode(s)", 120_000)
    page.locator("#ro-step input").fill("1")
    page.locator("#ro-step input").press("Enter")
    # The first recorded command runs in the live shell; persistence predicts the old screen.
    wait_for_text(page, "#ro-real", "nonexistent_file_xyz", 30_000)
    assert "nonexistent_file_xyz" not in page.locator("#ro-predicted").inner_text()
    shot(page, "rollouts-shadow")


@skip_unless_live("terminal")
def test_the_honesty_meter_and_leaderboard_of_a_sim_to_real_run(
    page, app: RunningApp, shot, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    """A real sim-to-real run of three agents (the CLI, into the app's database), then shown."""
    monkeypatch.setenv("AWP_DATA_DIR", str(app.settings.data_dir))
    code, output = run(
        "rollout",
        *("--agent", "scripted,random:1,random:2", "--engine", "persistence"),
        *("--domain", "terminal", "--tasks", "checked", "--episodes", "6", "--max-steps", "3"),
        *("--sim-to-real", "--replays", "2", "--out", str(tmp_path / "out")),
    )
    assert code == 0, output
    newest = app.context.runs.list_runs(RolloutRun)[0]
    open_app(page, app.url)
    open_tab(page, "Rollouts")
    page.get_by_text("Honesty meter and policy leaderboard").click()  # folded until opened
    page.locator("#ro-h-run input").fill(str(newest.id))
    page.locator("#ro-h-show").click()
    wait_for_text(page, "#ro-h-note", f"Run {newest.id}", 30_000)
    meter = page.locator("#ro-h-meter").inner_text()
    assert "passes in simulation, fails in reality" in meter and "hello" in meter
    assert "scripted" in page.locator("#ro-h-board").inner_text()
    # The plot arrives with the tables, but the browser draws it a moment later.
    page.locator("#ro-h-meter-plot img, #ro-h-meter-plot canvas").first.wait_for(timeout=30_000)
    page.locator("#ro-h-meter").scroll_into_view_if_needed()
    shot(page, "rollouts-honesty")
