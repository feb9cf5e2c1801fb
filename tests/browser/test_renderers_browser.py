"""Readable observations in Chromium: phone and desktop screens, prose, scores, help, benchmark.

Every bundled Android and desktop recording is stepped through in the Playground with the
oracle engine, so predicted and real states stand side by side through the real renderers and
the app's CSS; each step is measured (white screen, legible labels, outlined controls, changed
nodes marked, a full-width scrolling tree) and saved under tests/artifacts/renderers/ for a
person to look at.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.data.bundled import load_bundled
from backend.domains.base import get_domain
from backend.scoring import headline_metric
from backend.scoring.base import METRICS
from tests.browser.conftest import ARTIFACTS, VIEWPORT
from tests.browser.pages import choose, open_app, open_tab, start_blank, wait_for_text
from tests.support.app_server import RunningApp, start_app
from ui.renderers import render
from ui.renderers.trees import NOT_A_TREE
from ui.session import Score
from ui.theme import CSS
from ui.views import scores_html

pytestmark = pytest.mark.browser

SHOTS = ARTIFACTS / "renderers"
RECORDINGS = [t for t in load_bundled() if t.domain in ("android", "os")]
PROSE = (
    "To create a new folder, click the New button in the toolbar.\n"
    "A dialog opens, asking for the folder's name, with OK and Cancel buttons."
)

MEASURE = """(selector) => {
  const root = document.querySelector(selector);
  const screen = root.querySelector('.awp-screen');
  const wrap = root.querySelector('.awp-screen-wrap');
  const tree = root.querySelector('.awp-tree-scroll');
  const box = (el) => el ? el.getBoundingClientRect().toJSON() : null;
  const style = (el) => getComputedStyle(el);
  return {
    panel: box(root.querySelector('.awp-obs')),
    screen: box(screen),
    wrap: box(wrap),
    frame: wrap ? wrap.className : '',
    tree: box(tree),
    background: screen && style(screen).backgroundColor,
    fonts: [...root.querySelectorAll('.awp-el-label')].map((l) => parseFloat(style(l).fontSize)),
    clickable: [...root.querySelectorAll('.awp-el-click')].map(
      (c) => [parseFloat(style(c).borderTopWidth), style(c).borderTopColor]),
    treeOverflow: tree && style(tree).overflowY,
    treeScrolls: tree ? tree.scrollHeight > tree.clientHeight : false,
    changedRows: root.querySelectorAll('.awp-node.awp-added, .awp-node.awp-updated').length,
    changedBoxes: root.querySelectorAll(
      '.awp-el-added, .awp-el-updated, .awp-el-added-box, .awp-el-updated-box').length,
  };
}"""


@pytest.fixture(scope="module")
def oracle_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    """The app with the oracle engine: its prediction is the recorded next state."""
    running = start_app(tmp_path_factory.mktemp("oracle-app"), engine="oracle")
    yield running
    running.close()


@pytest.fixture
def tab(browser) -> Iterator:
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield page
    context.close()


def save(element, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    element.screenshot(path=str(path))
    return path


def static_page(page, body: str, width: int = 1100) -> None:
    """Show renderer output with the app's stylesheet, outside Gradio."""
    page.set_content(
        f"<html><head><style>{CSS} body {{ font-family: sans-serif; margin: 16px; "
        f"width: {width}px; }}</style></head><body>{body}</body></html>"
    )


def check_screen(seen: dict, domain: str) -> None:
    """A screen a person can read: white, 11px+ labels, outlined controls, tree full width."""
    assert seen["background"] == "rgb(255, 255, 255)"
    assert seen["fonts"] and min(seen["fonts"]) >= 11
    assert seen["clickable"], "clickable elements are outlined"
    assert all(width >= 1 and color != "rgba(0, 0, 0, 0)" for width, color in seen["clickable"])
    assert seen["treeOverflow"] == "auto"
    panel, tree, wrap = seen["panel"], seen["tree"], seen["wrap"]
    assert abs(tree["right"] - panel["right"]) < 4, "the tree reaches the panel's right edge"
    beside = tree["left"] >= wrap["right"]
    assert beside or abs(tree["left"] - panel["left"]) < 4, "below the screen it is full width"
    assert ("awp-screen-phone" in seen["frame"]) == (domain == "android"), "phones in a phone frame"
    if seen["changedRows"]:
        assert seen["changedBoxes"], "what changed in the tree is marked on the screen too"


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda t: t.id)
def test_recording_steps_are_readable_side_by_side(tab, oracle_app, recording):
    open_app(tab, oracle_app.url)
    choose(tab, "pg-domain", get_domain(recording.domain).title)
    choose(tab, "pg-trajectory", recording.id)
    wait_for_text(tab, "#pg-action textarea", recording.turns[0].action[:40])
    tab.get_by_text("State before the step").click()
    tab.locator("#pg-before .awp-obs").wait_for(state="visible")
    check_screen(tab.evaluate(MEASURE, "#pg-before"), recording.domain)
    name = recording.id.replace("/", "_")
    save(tab.locator("#pg-before"), f"{name}-0-initial")
    for number in range(1, len(recording.turns) + 1):
        tab.locator("#pg-step").click()
        wait_for_text(tab, "#pg-status", f"step {number} of session")
        predicted = tab.evaluate(MEASURE, "#pg-predicted")
        real = tab.evaluate(MEASURE, "#pg-real")
        for seen in (predicted, real):
            check_screen(seen, recording.domain)
        assert predicted["panel"]["right"] <= real["panel"]["left"], "side by side"
        assert abs(predicted["screen"]["width"] - real["screen"]["width"]) < 1, "same scale"
        row = tab.locator("#pg-predicted").locator("xpath=ancestor::div[contains(@class,'row')][1]")
        save(row, f"{name}-{number}")


@pytest.mark.parametrize("domain", ["web", "android", "os"])
def test_prose_in_a_tree_domain_is_shown_as_text_with_a_notice(tab, domain):
    renderer = get_domain(domain).renderer
    static_page(tab, render(renderer, PROSE), width=700)
    notice = tab.locator(".awp-notice")
    assert notice.inner_text() == NOT_A_TREE
    assert tab.locator(".awp-node, .awp-screen").count() == 0
    assert tab.locator("pre.awp-text").inner_text() == PROSE
    save(tab.locator("body"), f"prose-{domain}")


def test_prose_initial_state_in_the_playground_falls_back(tab, oracle_app):
    open_app(tab, oracle_app.url)
    start_blank(tab, "Web browser", PROSE)
    wait_for_text(tab, "#pg-before", "reads as prose")
    assert tab.locator("#pg-before .awp-node").count() == 0
    save(tab.locator("#pg-before"), "prose-web-playground")


def test_headline_score_comes_first_and_empty_bars_show(tab):
    domain = "android"
    headline = headline_metric(domain)
    others = [name for name in METRICS.names() if name != headline][:3]
    scores = [Score(name, 0.0) for name in others] + [Score(headline, 0.0)]
    static_page(tab, scores_html(scores, True, domain), width=900)
    assert tab.locator(".awp-headline-name").inner_text() == headline
    assert tab.locator(".awp-headline-desc").inner_text() == METRICS.get(headline).description
    assert tab.locator("details.awp-more").get_attribute("open") is None
    tab.locator("details.awp-more summary").click()
    for bar in tab.locator(".awp-bar").all():
        track, fill = bar.bounding_box(), bar.locator("i").bounding_box()
        assert track["height"] >= 6 and track["width"] >= 60
        assert fill["width"] >= 2 and fill["height"] >= 4, "a zero score still shows a sliver"
    save(tab.locator("body"), "scores-zero")


def test_action_help_shows_angle_brackets(tab, oracle_app):
    open_app(tab, oracle_app.url)
    choose(tab, "pg-domain", get_domain("swe").title)
    wait_for_text(tab, "#pg-help", "rewritten")
    text = tab.locator("#pg-help").inner_text()
    assert '"arguments": "<JSON string>"}}' in text
    assert "When the session has tool definitions" in text
    save(tab.locator("#pg-help"), "action-help-swe")


def test_benchmark_names_each_domains_metric_and_tracks_progress_once(tab, oracle_app):
    poll = next(
        dep
        for dep in oracle_app.blocks.config["dependencies"]
        if dep["api_name"] == "bench_run_poll"
    )
    assert poll["show_progress"] == "hidden"  # progress is the job line, not a fade per output
    open_app(tab, oracle_app.url)
    open_tab(tab, "Benchmark")
    tab.locator("#bm-run").click()
    wait_for_text(tab, "#bm-status", "Finished", timeout_ms=180_000)
    table = tab.locator("#bm-results")
    headers = [h.strip() for h in table.locator("th").all_inner_texts() if h.strip()]
    domains = {t.domain for t in load_bundled()}
    named = [h for h in headers if h.split(" · ")[0] in domains]
    assert named and all(
        h == f"{h.split(' · ')[0]} · {headline_metric(h.split(' · ')[0])}" for h in named
    )
    assert headers[-2:] == ["items", "failed"]
    right = table.bounding_box()
    for cell in table.locator("td, th").all():
        box = cell.bounding_box()
        assert box is None or box["x"] + box["width"] <= right["x"] + right["width"] + 1
    save(tab.locator("#bm-results"), "benchmark-table")
