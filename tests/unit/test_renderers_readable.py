"""Readable observations: prose is not drawn as a tree, screens are sketched legibly, one-line
recordings diff line by line, scores lead with the headline metric, help text shows literally."""

from __future__ import annotations

import json
import re

import pytest

from backend.benchmark.results import BenchResults, DomainStats, EngineStats, Overall
from backend.data.bundled import load_bundled
from backend.domains.base import get_domain
from backend.scoring import headline_metric
from backend.scoring.base import METRICS
from backend.scoring.parsers.shape import looks_like_tree
from backend.types import ObservationKind
from ui.bench import table
from ui.pages.playground_view import action_help
from ui.renderers import render, render_diff
from ui.renderers.base import esc
from ui.renderers.pretty import MAX_INDENT, pretty, pretty_json, pretty_markup
from ui.renderers.screen import MAX_BOXES
from ui.renderers.trees import NOT_A_TREE
from ui.session import Score
from ui.views import markdown_code, markdown_text, scores_html

PROSE = "To create a new file, click the New button.\nThen type a name and press OK."
TREE_DOMAINS = ("web", "os", "android")


def node(text: str = "", bounds: str = "[0,0][100,100]", **attrs: str) -> str:
    extra = "".join(f' {key.replace("_", "-")}="{value}"' for key, value in attrs.items())
    return f'<node class="android.widget.TextView" text="{text}" bounds="{bounds}"{extra}'


def screen(*nodes: str) -> str:
    root = '<node class="F" bounds="[0,0][1080,2400]">'
    return f'<hierarchy rotation="0">{root}{"".join(nodes)}</node></hierarchy>'


def elements(html: str) -> list[tuple[str, str]]:
    """(class, label) of every sketched element."""
    return re.findall(r'<div class="(awp-el[^"]*)"[^>]*>(?:<span[^>]*>([^<]*)</span>)?', html)


# -- prose is not a tree ------------------------------------------------------------------------


@pytest.mark.parametrize("domain", TREE_DOMAINS)
def test_prose_prediction_is_text_with_a_notice(domain):
    out = render(get_domain(domain).renderer, PROSE)
    assert esc(NOT_A_TREE) in out
    assert "awp-node" not in out and "awp-screen" not in out
    assert "To create a new file, click the New button." in out


@pytest.mark.parametrize("domain", TREE_DOMAINS)
def test_prose_previous_state_marks_nothing(domain):
    trajectory = next(t for t in load_bundled() if t.domain == domain)
    real = trajectory.turns[0].observation
    out = render(get_domain(domain).renderer, real, PROSE)
    assert "awp-node" in out and "Against the previous state" not in out


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        (ObservationKind.AXTREE, "[12] button 'OK'\n\tStaticText 'Done'", True),
        (ObservationKind.AXTREE, "RootWebArea 'Task', focused\n\tgeneric\n\t\tLineBreak", True),
        (ObservationKind.AXTREE, "Tab 0 (current): X\n\n[1] RootWebArea 'X' focused: True", True),
        (ObservationKind.AXTREE, "Done", False),
        (ObservationKind.AXTREE, "However, the page shows a dialog now.", False),
        (ObservationKind.AXTREE, PROSE, False),
        (ObservationKind.A11Y_TREE, "tag\tname\ttext\npush-button\tOK\t\n", True),
        (ObservationKind.A11Y_TREE, PROSE, False),
        (ObservationKind.A11Y_TREE, '{"Name": "Taskbar", "ControlType": "PaneControl"}', True),
        (ObservationKind.ANDROID_XML, "<hierarchy/>", True),
        (ObservationKind.ANDROID_XML, "The app shows its home screen.", False),
    ],
)
def test_tree_shape(kind, text, expected):
    assert looks_like_tree(kind, text) is expected


def test_every_bundled_tree_observation_is_tree_shaped():
    for trajectory in load_bundled():
        if trajectory.domain not in TREE_DOMAINS:
            continue
        kind = get_domain(trajectory.domain).observation_kind
        for text in [trajectory.initial_state, *(t.observation for t in trajectory.turns)]:
            assert text is None or looks_like_tree(kind, text), trajectory.id


# -- screen sketch ------------------------------------------------------------------------------


def test_android_screen_outlines_controls_and_writes_inner_text_once():
    xml = screen(
        node("", "[0,0][500,200]", clickable="true")
        + ">"
        + node("Next", "[20,20][480,180]")
        + "/></node>",
        node("Name", "[0,300][1080,400]", focused="true", clickable="true") + "/>",
        node("Wi-Fi", "[0,500][1080,600]", checkable="true", checked="true") + "/>",
        node("\uf24a", "[0,700][100,800]") + "/>",
    )
    out = render("android", xml)
    drawn = elements(out)
    labels = [label for _, label in drawn if label]
    assert labels == ["Next", "Name", "☑ Wi-Fi"], "icon glyphs and container names stay unwritten"
    assert any("awp-el-click" in cls and not label for cls, label in drawn), "the button box"
    assert any("awp-el-focus" in cls for cls, label in drawn if label == "Name")
    assert any("awp-el-image" in cls for cls, _ in drawn), "an icon is drawn as an image"
    assert "awp-screen-phone" in out and "aspect-ratio:1080/2400" in out


def test_changed_text_is_tinted_and_changed_container_edged():
    before = screen(node("Old", "[0,0][1080,100]") + "/>")
    after = screen(node("New", "[0,0][1080,100]") + "/>", node("Added", "[0,200][1080,300]") + "/>")
    drawn = dict((label, cls) for cls, label in elements(render("android", after, before)))
    assert "awp-el-updated" in drawn["New"] and "awp-el-added" in drawn["Added"]


def test_off_screen_and_absurd_bounds_do_not_shrink_the_screen():
    xml = screen(
        node("far", "[0,0][99999,99999]") + "/>",
        node("above", "[0,-400][1080,-300]") + "/>",
        node("ok", "[0,100][1080,200]") + "/>",
    )
    out = render("android", xml)
    assert "Screen sketch, 1080x2400 pixels" in out
    assert [label for _, label in elements(out) if label] == ["ok"]


def test_taskbar_strip_keeps_a_readable_height():
    taskbar = {
        "Name": "Taskbar",
        "ControlType": "PaneControl",
        "Children": [
            {
                "Name": "Start",
                "ControlType": "ButtonControl",
                "BoundingRectangle": {"left": 0, "top": 728, "right": 48, "bottom": 768},
            },
            {
                "Name": "Clock",
                "ControlType": "ButtonControl",
                "BoundingRectangle": {"left": 1300, "top": 728, "right": 1366, "bottom": 768},
            },
        ],
        "BoundingRectangle": {"left": 0, "top": 728, "right": 1366, "bottom": 768},
    }
    out = render("a11y_tree", json.dumps(taskbar))
    width = int(re.search(r"min-width:(\d+)px", out).group(1))
    assert width * 40 / 1366 >= 30
    assert "awp-screen-desktop" in out and "awp-screen-phone" not in out


def test_huge_screen_is_bounded():
    views = "".join(node(str(i), f"[0,{i}][1080,{i + 1}]") + "/>" for i in range(2_000))
    out = render("android", screen(views))
    assert len(elements(out)) == MAX_BOXES


def test_tree_rows_skip_resting_flags_and_repeated_packages():
    xml = screen(
        node("A", package="com.app", enabled="true") + "/>",
        node("B", package="com.app", enabled="false") + "/>",
        node("C", package="com.other") + "/>",
    )
    rows = re.findall(r'<div class="awp-node[^>]*>(.*?)</div>', render("android", xml))
    assert sum("com.app" in row for row in rows) == 1 and any("com.other" in r for r in rows)
    assert not any("enabled" in row for row in rows)


# -- diffs laid out one node or key a line -----------------------------------------------------


def test_one_line_android_dumps_diff_node_by_node():
    real = screen(
        *(node(f"row {i}", f"[0,{i * 100}][1080,{i * 100 + 90}]") + "/>" for i in range(20))
    )
    predicted = real.replace('text="row 7"', 'text="row seven"')
    assert "\n" not in real
    out = render_diff(predicted, real, kind="android")
    assert "1 line differs." in out and "one node or key a line" in out
    assert "<mark>seven</mark>" in out or "seven</mark>" in out
    assert "unchanged lines" in out, "long unchanged runs are folded"
    assert "1 line differs." in render_diff(predicted, real), "without a kind: as before"


def test_json_is_pretty_printed_in_key_order():
    items = ", ".join([f'"{"x" * 10}"'] * 8)
    text = f'{{"zeta": 1, "alpha": {{"a": 1, "b": 2}}, "list": [{items}]}}'
    lines = pretty_json(text).split("\n")
    assert lines[1].strip() == '"zeta": 1,'
    assert lines[2].strip() == '"alpha": {"a": 1, "b": 2},'
    assert len(lines) > 10
    assert json.loads(pretty_json(text)) == json.loads(text)


def test_markup_is_one_element_a_line_and_malformed_text_survives():
    assert pretty_markup("<a><b x='1'/><c>t</c></a>").split("\n") == [
        "<a>",
        "  <b x='1'/>",
        "  <c>t</c>",
        "</a>",
    ]
    assert pretty("json", "{not json") == "{not json"
    assert pretty("terminal", "<a><b/></a>") == "<a><b/></a>"
    too_deep = "[" * 5_000 + "]" * 5_000
    assert pretty_json(too_deep) == too_deep
    deep = "[" * 100 + '"' + "x" * 100 + '"' + "]" * 100
    indents = [len(line) - len(line.lstrip()) for line in pretty_json(deep).split("\n")]
    assert max(indents) <= 2 * MAX_INDENT


# -- scores, help text, benchmark table --------------------------------------------------------


@pytest.mark.parametrize("domain", (*TREE_DOMAINS, "terminal", "swe", "mcp", "search"))
def test_headline_metric_comes_first_with_its_meaning(domain):
    headline = headline_metric(domain)
    others = [name for name in METRICS.names() if name != headline][:4]
    out = scores_html([Score(n, 0.5) for n in others] + [Score(headline, 0.0)], True, domain)
    assert out.index(headline) < min(out.index(name) for name in others)
    assert esc(METRICS.get(headline).description) in out
    assert "<details" in out and f"Other metrics ({len(others)})" in out


def test_scores_without_a_domain_or_headline_are_listed_alike():
    scores = [Score("judge_<x>", 0.2)]
    for domain in (None, "no-such-domain", "android"):
        out = scores_html(scores, True, domain)
        assert "<details" not in out and "judge_&lt;x&gt;" in out
    assert "no scores" in scores_html([], False, "android")


def test_action_help_shows_angle_brackets_and_code_literally():
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt().render(action_help("swe"))
    assert "&quot;arguments&quot;: &quot;&lt;JSON string&gt;&quot;" in html
    literal = "a_b *c* [d](e) <b>"
    assert markdown_it.MarkdownIt().render(markdown_text(literal)) == f"<p>{esc(literal)}</p>\n"
    assert markdown_code("x ` y").startswith("`` ")


def test_benchmark_table_names_each_domains_headline_metric():
    def stats(value: float) -> EngineStats:
        domains = {
            d: DomainStats(
                items=2, failures=0, metrics={}, headline=headline_metric(d), headline_value=value
            )
            for d in ("android", "terminal")
        }
        overall = Overall(macro=value, micro=value)
        return EngineStats(
            model="m",
            items=4,
            failures=1,
            finish_reasons={},
            domains=domains,
            headline_overall=overall,
        )

    results = BenchResults(
        dataset="bundled",
        history_mode="teacher_forced",
        engines={"oracle": stats(1.0), "persistence": stats(0.25)},
    )
    headers, rows = table(results)
    assert headers == [
        "engine",
        f"android · {headline_metric('android')}",
        f"terminal · {headline_metric('terminal')}",
        "Overall macro",
        "Overall micro",
        "items",
        "failed",
    ]
    assert rows == [
        ["oracle", "100.0", "100.0", "100.0", "100.0", "4", "1"],
        ["persistence", "25.0", "25.0", "25.0", "25.0", "4", "1"],
    ]
