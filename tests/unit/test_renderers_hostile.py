"""Hostile observations render escaped or sandboxed: nothing from the input can run or leak."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from ui.renderers import RENDERERS, render, render_diff
from ui.renderers.base import MAX_CHARS

SCRIPT = "<script>window.pwned = 1</script>"
PAYLOADS = [
    SCRIPT,
    '<img src=x onerror="window.pwned=1">',
    '<a href="javascript:alert(1)">x</a>',
    "</iframe><script>window.pwned=1</script>",
    '"><svg onload=alert(1)>',
    "'; alert(1); '",
]


class TagCollector(HTMLParser):
    """Collects the elements and attributes a browser would build from a fragment."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def parsed(html: str) -> list[tuple[str, dict[str, str | None]]]:
    collector = TagCollector()
    collector.feed(html)
    return collector.tags


ALLOWED_TAGS = {
    "div",
    "span",
    "pre",
    "iframe",
    "svg",
    "g",
    "rect",
    "text",
    "title",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "mark",
    "colgroup",
    "col",
}
ALLOWED_ATTRS = {
    "class",
    "style",
    "title",
    "sandbox",
    "referrerpolicy",
    "srcdoc",
    "href",
    "target",
    "rel",
    "x",
    "y",
    "width",
    "height",
    "font-size",
    "viewbox",
    "preserveaspectratio",
    "role",
    "aria-label",
}


@pytest.mark.parametrize("name", sorted(RENDERERS.names()))
@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_never_becomes_markup(name, payload):
    for tag, attrs in parsed(render(name, payload, previous=payload)):
        assert tag in ALLOWED_TAGS
        assert set(attrs) <= ALLOWED_ATTRS
        assert (attrs.get("href") or "https://").startswith("https://")
        if tag == "iframe":
            assert attrs["sandbox"] == ""


def test_html_runs_only_inside_a_script_less_sandbox():
    out = render("html", f"<html><body>{SCRIPT}</iframe><b onmouseover=x>hi</b></body></html>")
    frames = re.findall(r"<iframe[^>]*>", out)
    assert len(frames) == 1
    frame = frames[0]
    assert 'sandbox=""' in frame
    assert "allow-scripts" not in out and "allow-same-origin" not in out
    srcdoc = re.search(r'srcdoc="([^"]*)"', frame).group(1)
    assert "<" not in srcdoc and '"' not in srcdoc  # escaped: cannot close the attribute or frame
    assert "Content-Security-Policy" in srcdoc


def test_search_only_links_http_urls():
    text = "[1] javascript:alert(1)\nTitle: evil\n\n[2] data:text/html,x\nTitle: data\n"
    out = render("search", text)
    assert "href=" not in out
    json_payload = '[{"title": "t", "url": "javascript:alert(1)"}]'
    assert "href=" not in render("search", json_payload)


def test_svg_labels_are_escaped():
    xml = '<hierarchy><node class="a" text="&lt;script&gt;x" bounds="[0,0][100,100]"/></hierarchy>'
    out = render("android", xml)
    assert "<script" not in out and "&lt;script&gt;x" in out


def test_xxe_does_not_read_files(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET")
    for name in ("android", "a11y_tree"):
        xml = (
            f'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file://{secret}">]>'
            '<hierarchy><node text="&x;" bounds="[0,0][1,1]">&x;</node></hierarchy>'
        )
        out = render(name, xml)
        assert "TOPSECRET" not in out
        assert "awp-notice" in out


def test_entity_bomb_is_refused_quickly():
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">'
        + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8))
        + ']><hierarchy><node text="&i;"/></hierarchy>'
    )
    out = render("android", bomb)
    assert len(out) < 10_000


def test_ansi_flood_is_bounded():
    flood = "".join(f"\x1b[3{i % 8}mx" for i in range(100_000))
    out = render("terminal", flood)
    assert out.count("<span") <= 2_001
    assert "uncoloured" in out


def test_non_sgr_escapes_are_dropped():
    out = render("terminal", "a\x1b]0;title\x07b\x1b[2Jc\x1b[?25ld\x07\x08e")
    assert ">abcde<" in out


def test_five_megabyte_screen_is_truncated_with_notice():
    screen = ("x" * 79 + "\n") * (5_000_000 // 80)
    out = render("terminal", screen)
    assert len(out) < MAX_CHARS + 10_000
    assert "Showing the first" in out


def test_huge_diff_is_bounded():
    big = "line\n" * 1_000_000
    out = render_diff(big, big + "extra")
    assert len(out) < 3 * MAX_CHARS


def test_renderer_bug_falls_back_to_text(monkeypatch):
    def broken(text, previous):
        raise RuntimeError("boom")

    monkeypatch.setitem(RENDERERS._items, "json", broken)
    out = render("json", "<b>")
    assert "could not be displayed" in out and "&lt;b&gt;" in out


@pytest.mark.parametrize("name", ["android", "a11y_tree", "json", "search"])
def test_garbage_never_raises(name):
    for junk in ["", "{", "<", "[1", "<hierarchy><node bounds='[a,b][c,d]'/>", "\x00\xff" * 50]:
        render(name, junk)
