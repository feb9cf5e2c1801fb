"""A person votes on the Real-or-not and Arena pages, sees the reveal and the report update, and
an admin reads the Agreement dashboard. Screenshots land in tests/artifacts/."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from backend.recording import StoredScore
from backend.verdicts import Verdict
from storage.annotations import AnnotationInput, Ratings
from tests.browser.pages import choose, open_tab, wait_for_text, wait_until
from tests.support.app_server import RunningApp, start_app
from tests.support.postgres import fake_prediction
from tests.support.sessions import SessionWriter

DIMS = ("format", "factuality", "consistency", "realism", "quality")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    settings = {"arena_contenders": "persistence,oracle", "arena_bootstrap_rounds": 50}
    running = start_app(tmp_path_factory.mktemp("compare-browser"), settings=settings)
    yield running
    running.close()


def test_arena_vote_reveals_and_the_leaderboard_updates(page, app: RunningApp, shot) -> None:
    page.goto(app.url)
    open_tab(page, "Arena")
    choose(page, "ar-domain", "Terminal")
    for round_ in range(3):
        page.locator("#ar-battle").click()
        # The new battle clears the last reveal; until then the page shows the voted battle,
        # and a vote pressed now would go to it (refused: already voted) on a busy machine.
        wait_until(
            page,
            "() => !(document.querySelector('#ar-reveal')?.innerText || '').includes('was')",
            "the new battle to clear the last reveal",
            ["#ar-reveal", "#ar-job", "#ar-message"],
        )
        wait_for_text(page, "#ar-context", "Action")
        assert "baseline:" not in page.locator("#ar-sides").inner_text()
        if round_ == 0:
            shot(page, "arena-battle")
        page.locator("#ar-vote-a").click()
        wait_for_text(page, "#ar-reveal", "was baseline:")
    # The table refreshes after the reveal; every battle pits the same two contenders, so both
    # rows reach three votes once the last vote is counted.
    wait_until(
        page,
        "() => /baseline:oracle\\s+\\d+\\s+\\d+-\\d+\\s+3\\s/.test("
        "document.querySelector('#ar-people')?.innerText || '')",
        "both contenders' rows to reach three votes",
        ["#ar-people", "#ar-message"],
    )
    shot(page, "arena-leaderboard")


def test_which_one_is_real_vote_and_reveal(page, app: RunningApp, shot) -> None:
    writer = SessionWriter(app.context.sessions, domain="terminal", initial_state="$ ")
    guess = fake_prediction("$ ", engine="persistence", model="baseline:persistence")
    writer.add('[{"keystrokes": "ls\\n", "duration": 1}]', "$ ls\nnotes.txt", "recorded", guess)
    page.goto(app.url)
    open_tab(page, "Which one is real?")
    page.locator("#rn-next").click()
    wait_for_text(page, "#rn-context", "Action")
    shot(page, "real-or-not-item")
    page.locator("#rn-choice label", has_text="A is real").click()
    page.locator("#rn-confidence label", has_text="Fairly sure").click()
    page.locator("#rn-vote").click()
    wait_for_text(page, "#rn-reveal", "was real")
    assert "Action" in page.locator("#rn-context").inner_text()  # the voted item stays shown
    wait_for_text(page, "#rn-results", "baseline:persistence")
    shot(page, "real-or-not-reveal")


def test_admin_reads_the_agreement_dashboard(page, app: RunningApp, shot) -> None:
    sessions = app.context.sessions
    notes = app.context.annotations
    writer = SessionWriter(sessions, domain="terminal", initial_state="$ ")
    ids = []
    for i, engine in enumerate(("persistence", "oracle", "oracle")):
        guess = fake_prediction(f"$ ls\nfile{i}", engine=engine, model=f"baseline:{engine}")
        stored = writer.add(
            f'[{{"keystrokes": "ls {i}\\n", "duration": 1}}]',
            f"$ ls {i}\nfile{i}",
            "recorded",
            guess,
        )
        ids.append(stored.prediction_id)
    for i, pid in enumerate(ids):
        sessions.add_scores(pid, [StoredScore(f"judge.{d}", "v1", float(5 - i)) for d in DIMS])
        for name, value in (("ann", 1 + i), ("bob", 2 + i)):
            ratings = Ratings(**dict.fromkeys(DIMS, value))
            notes.submit(
                pid,
                name,
                AnnotationInput(
                    verdict=Verdict.REJECT, corrected_observation=f"fix {name}", ratings=ratings
                ),
            )
    page.goto(app.url)
    open_tab(page, "Agreement")
    page.locator("#ag-refresh").click()
    wait_for_text(page, "#ag-dimensions", "factuality")
    wait_for_text(page, "#ag-worst", "open on Annotate")
    shot(page, "agreement-dashboard")
    link = page.locator("#ag-worst a").first
    target = link.get_attribute("href")
    assert target is not None and target.startswith("?prediction=")
    page.goto(app.url + target)
    wait_for_text(page, "#an-header", f"#{target.split('=')[1]}")
    shot(page, "agreement-link-opens-annotate")
