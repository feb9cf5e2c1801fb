"""The live closure on the Playground: reward and end as chips, the live page as a picture."""

from __future__ import annotations

from ui.pages.playground_view import live_chips, screenshot_html, shown_live
from ui.session import LiveView, PlaySession, PlayStep

PNG = b"\x89PNG\r\n\x1a\n-not-a-real-image"


def test_reward_and_end_are_chips_after_a_step_and_nothing_at_the_start() -> None:
    solved = live_chips(LiveView(1, 1.0, True))
    assert "live reward</b> 1" in solved and "episode</b> done" in solved
    assert "awp-chip-good" in solved
    going = live_chips(LiveView(2, None, False))
    assert "live reward</b> none" in going and "goes on" in going
    assert live_chips(LiveView(0)) == "" and live_chips(None) == ""


def test_the_picture_says_when_it_was_taken_and_a_failed_one_says_why() -> None:
    shown = screenshot_html(LiveView(1, 1.0, True, PNG))
    assert 'src="data:image/png;base64,' in shown and "after step 1" in shown
    assert "at the start" in screenshot_html(LiveView(0, screenshot=PNG))
    assert "browser failed" in screenshot_html(LiveView(1, problem="The browser failed"))
    assert screenshot_html(LiveView(1)) == ""  # a terminal: no picture, no placeholder


def test_a_rewind_leaves_the_live_view_of_a_later_step_behind() -> None:
    steps = (PlayStep("click('1')"), PlayStep("click('2')"))
    session = PlaySession("web", steps=steps, live_view=LiveView(2, 1.0, True, PNG))
    assert shown_live(session) is not None
    assert shown_live(session.rewound(1)) is None
