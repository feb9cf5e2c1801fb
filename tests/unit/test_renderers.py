"""Renderers on real recorded observations: every kind renders richly and never raises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ui.renderers import RENDERERS, render, render_diff

RECORDED = Path("/work/shared/data/recorded")
needs_recorded = pytest.mark.skipif(not RECORDED.is_dir(), reason="recorded data not present")


def read_dump(path: Path) -> str:
    """Decode a uiautomator dump the way importers do (some are UTF-16 with a BOM)."""
    raw = path.read_bytes()
    return raw.decode("utf-16") if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else raw.decode()


@pytest.fixture(scope="module")
def miniwob() -> list[dict]:
    return json.loads((RECORDED / "web/agentlab-miniwob/derived_episodes.json").read_text())


def test_every_builtin_renderer_is_registered():
    expected = {"terminal", "html", "axtree", "a11y_tree", "android", "json", "search", "text"}
    assert expected <= set(RENDERERS.names())


def test_unknown_renderer_falls_back_to_text():
    out = render("hologram", "<b>x</b>")
    assert "No renderer called" in out and "&lt;b&gt;" in out


def test_none_observation_says_so():
    assert "No observation" in render("text", None)


@needs_recorded
def test_axtree_marks_the_checkbox_that_changed(miniwob):
    transition = miniwob[0]["transitions"][0]
    out = render("axtree", transition["axtree_after"], transition["axtree_before"])
    assert "1 updated" in out
    updated = out.split('awp-updated" title="updated"')[1][:300]
    assert "[18]" in updated and "checked=&#x27;true&#x27;" in updated


@needs_recorded
def test_pruned_html_from_miniwob_is_sandboxed(miniwob):
    out = render("html", miniwob[0]["steps"][0]["pruned_html"])
    assert '<iframe class="awp-frame" sandbox=""' in out
    assert "Click Checkboxes Task" in out


@needs_recorded
@pytest.mark.parametrize(
    "path",
    sorted(RECORDED.glob("android/*.xml")) if RECORDED.is_dir() else [],
    ids=lambda p: p.name,
)
def test_every_android_dump_renders_tree_and_wireframe(path):
    out = render("android", read_dump(path))
    assert "awp-notice" not in out
    assert 'class="awp-screen"' in out and "awp-node" in out


@needs_recorded
def test_android_pair_highlights_changes():
    pairs = json.loads((RECORDED / "android/derived_pairs.json").read_text())
    pair = pairs["pairs"][0]
    before, after = (read_dump(RECORDED / "android" / pair[k]) for k in ("before", "after"))
    out = render("android", after, before)
    assert "Against the previous state" in out
    assert "awp-added" in out.split('class="awp-tree"')[1]


@needs_recorded
def test_windows_uia_tree_renders_with_bounds():
    lines = (RECORDED / "os/opencua-agentnet-raw/a11y.jsonl").read_text().splitlines()
    before, after = (json.dumps(json.loads(line)["axtree"]) for line in lines[:2])
    out = render("a11y_tree", after, before)
    assert "awp-notice" not in out
    assert 'class="awp-screen"' in out and "Taskbar" in out


@needs_recorded
def test_swe_agent_tool_output_renders_as_text():
    traj = json.loads((RECORDED / "swe/swe-agent/pydicom__pydicom-1458.traj").read_text())
    observation = traj["trajectory"][0]["observation"]
    out = render("text", observation)
    assert out.count("<pre") == 1


@needs_recorded
def test_tau_bench_tool_result_is_highlighted_json():
    runs = json.loads((RECORDED / "mcp/tau-bench/gpt-4o-airline.json").read_text())
    result = next(m["content"] for m in runs[0]["traj"] if m["role"] == "tool")
    out = render("json", result)
    assert "awp-json-key" in out


def test_search_results_become_cards():
    text = (
        "[1] https://example.org/a\nTitle: First\nSnippet: one\nDate: 2024-01-01\n\n"
        "[2] https://example.org/b\nTitle: Second\nSnippet: two\n"
    )
    out = render("search", text)
    assert out.count('class="awp-card"') == 2
    assert 'href="https://example.org/a"' in out and 'rel="noopener noreferrer nofollow"' in out


def test_search_payload_json_becomes_cards():
    payload = {"search_result": [{"title": "T", "link": "https://x.test/", "content": "c"}]}
    assert 'class="awp-card"' in render("search", json.dumps(payload))


def test_accessibility_table_from_osworld():
    text = (
        "tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)\n"
        "push-button\tOK\t\t\t\t(10, 20)\t(80, 30)\n"
    )
    out = render("a11y_tree", text)
    assert 'class="awp-screen"' in out and "OK" in out


def test_terminal_colours_become_classed_spans():
    out = render("terminal", "\x1b[1;32mgreen\x1b[0m \x1b[38;5;196mred\x1b[0m \x1b[38;2;1;2;3mrgb")
    assert '<span class="awp-bold awp-fg2">green</span>' in out
    assert "color:#ff0000" in out and "color:#010203" in out


def test_terminal_carriage_return_overwrites():
    assert "done!" in render("terminal", "50%\rdone!\n")


def test_diff_marks_changed_lines_and_characters():
    out = render_diff("a\nb\nc", "a\nB\nc\nd")
    assert "2 lines differ." in out
    assert "<mark>b</mark>" in out and "<mark>B</mark>" in out
    assert 'class="awp-d-add"' in out


def test_a_long_diff_shows_its_size_and_first_rows_and_folds_the_rest():
    from ui.renderers.diff import SHOWN_ROWS

    junk = "\n".join(f"junk line {i}" for i in range(500))
    real = "\n".join(f"real line {i}" for i in range(300))
    out = render_diff(junk, real)
    shown, rest = out.split('<details class="awp-diff-rest">')
    assert "500 lines" in shown and "300 (" in shown and f"first {SHOWN_ROWS} rows" in shown
    assert shown.count("<tr class=") == SHOWN_ROWS
    assert "Show the other 460 rows" in rest and rest.count("<tr class=") == 460
    assert "awp-diff-rest" not in render_diff("a\nb", "a\nc")  # a short diff folds nothing


def test_diff_of_identical_texts():
    assert "Identical." in render_diff("same", "same")


@pytest.fixture(scope="module")
def converted():
    from backend.data.recorded import load_recorded

    return load_recorded(RECORDED)


@needs_recorded
def test_every_recorded_observation_renders_with_its_domain_renderer(converted):
    from backend.domains.base import all_domains, get_domain

    domains = set()
    for trajectory in converted:
        renderer = get_domain(trajectory.domain).renderer
        previous = trajectory.initial_state
        for turn in trajectory.turns:
            out = render(renderer, turn.observation, previous)
            # tau-bench tools answer errors in plain text; only those may fall back
            assert "awp-notice" not in out or renderer == "json"
            previous = turn.observation
        domains.add(trajectory.domain)
    assert domains == {domain.name for domain in all_domains()}
