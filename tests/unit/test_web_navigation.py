"""The web action layer's refusal of `goto` URLs that are no task page (no browser needed)."""

from __future__ import annotations

import pytest

from backend.envs.live.miniwob import refused_navigation

PAGES = "file:///opt/miniwob/html/"


@pytest.mark.parametrize(
    "action",
    [
        "click('12')",
        f"goto('{PAGES}miniwob/click-button.html')",
        f"noop(0)\ngoto(url='{PAGES}miniwob/click-dialog.html')",
        "not python at all (",
    ],
)
def test_task_pages_and_other_actions_may_run(action: str) -> None:
    assert refused_navigation(action, PAGES) == ""


@pytest.mark.parametrize(
    "action",
    [
        "goto('javascript:void(core.endEpisode(1.0, true))')",
        "goto('JAVASCRIPT:core.endEpisode(1)')",
        "noop(0)\ngoto('data:text/html,<script>1</script>')",
        "goto(url='http://127.0.0.1:8000/')",
        f"goto('{PAGES}'[:0] + 'javascript:1')",
        "goto(u)",
    ],
)
def test_any_other_goto_is_refused(action: str) -> None:
    assert refused_navigation(action, PAGES).startswith("ValueError: goto may only open")
