"""Tree parsers on real recorded observations of every structured format, and on small samples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backend.errors import BadInputError
from backend.scoring.nodes import ROOT_ROLE
from backend.scoring.parsers import detect_format, parse_tree
from backend.scoring.parsers.android import parse_android_json, parse_android_xml
from backend.scoring.parsers.axtree import parse_axtree
from backend.scoring.parsers.desktop import parse_atspi_xml, parse_osworld_table, parse_uia_json
from backend.scoring.parsers.html import parse_html_tree


def decode_dump(path: Path) -> str:
    """Decode a dump the way an importer does: UTF-16 with BOM, else UTF-8 (BOM tolerated)."""
    raw = path.read_bytes()
    return (
        raw.decode("utf-16") if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else raw.decode("utf-8-sig")
    )


def test_every_recorded_android_dump_parses(recorded_root: Path) -> None:
    dumps = sorted((recorded_root / "android").glob("*.xml"))
    assert len(dumps) == 53
    for path in dumps:
        tree = parse_android_xml(decode_dump(path))
        nodes = tree.flatten()
        assert tree.root.role == "hierarchy"
        assert len(nodes) > 5, path.name
        assert not tree.truncated
        assert any(flat.node.bounds is not None for flat in nodes)


def test_utf16_crlf_dump_matches_its_utf8_twin(recorded_root: Path) -> None:
    """ui_after_tap is a UTF-16LE/CRLF PowerShell redirect; ui_fab_check has the trailer line."""
    utf16 = parse_android_xml(decode_dump(recorded_root / "android" / "swiftapp__ui_after_tap.xml"))
    trailer = decode_dump(recorded_root / "android" / "swiftapp__ui_fab_check.xml")
    assert trailer.rstrip().endswith("/dev/tty")
    assert utf16.size() == parse_android_xml(trailer).size() == 55


def test_android_node_fields() -> None:
    xml = (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
        '<node index="0" text="Allow" resource-id="com.x:id/ok" class="android.widget.Button" '
        'content-desc="" checked="false" clickable="true" bounds="[10,20][110,70]" />'
        "</hierarchy>UI hierchary dumped to: /dev/tty\n"
    )
    node = parse_android_xml(xml).flatten()[1].node
    assert (node.role, node.name, node.node_id) == ("android.widget.Button", "Allow", "com.x:id/ok")
    assert node.bounds == (10, 20, 110, 70)
    assert node.attrs == {"checked": "false", "clickable": "true"}


def test_droidbot_view_list_and_nested_json() -> None:
    views = [
        {"class": "FrameLayout", "parent": -1, "children": [1, 2], "bounds": [[0, 0], [100, 200]]},
        {"class": "TextView", "text": "Hello", "parent": 0, "children": [], "resource_id": "t"},
        {"class": "Button", "text": "OK", "parent": 0, "children": [], "checked": False},
    ]
    tree = parse_android_json(json.dumps(views))
    assert [f.node.role for f in tree.flatten()] == ["FrameLayout", "TextView", "Button"]
    assert tree.flatten()[0].node.bounds == (0, 0, 100, 200)
    assert tree.flatten()[2].node.attrs == {"checked": "false"}
    nested = {"class": "Root", "children": [{"class": "Leaf", "text": "x"}]}
    assert [f.depth for f in parse_android_json(json.dumps(nested)).flatten()] == [1, 2]


def test_uia_json_recorded_snapshots(recorded_root: Path) -> None:
    lines = (recorded_root / "os" / "opencua-agentnet-raw" / "a11y.jsonl").read_text("utf-8")
    snapshots = [json.loads(line) for line in lines.split("\n") if line.strip()]
    assert len(snapshots) == 32
    for snapshot in snapshots:
        from_tree = parse_uia_json(json.dumps(snapshot["axtree"]))
        from_line = parse_uia_json(json.dumps(snapshot))
        assert from_tree.size() == from_line.size() > 0
    first = parse_uia_json(json.dumps(snapshots[0]["axtree"])).flatten()[0].node
    assert (first.role, first.name, first.bounds) == ("PaneControl", "Taskbar", (0, 728, 1366, 768))


def test_osworld_table() -> None:
    table = (
        "tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)\n"
        "push-button\tFiles\t\t\t\t(0, 33)\t(70, 64)\n"
        "label\tHome\tHome\t\t\t(80, 40)\t(30, 10)\n"
    )
    rows = [flat.node for flat in parse_osworld_table(table).flatten()]
    assert [(n.role, n.name, n.bounds) for n in rows] == [
        ("push-button", "Files", (0, 33, 70, 97)),
        ("label", "Home", (80, 40, 110, 50)),
    ]
    assert rows[1].attrs == {"text": "Home"}


def test_atspi_xml() -> None:
    xml = (
        '<desktop-frame xmlns:st="urn:st" xmlns:cp="urn:cp" name="main">'
        '<push-button name="Files" st:focused="true" cp:screencoord="(0, 33)" cp:size="(70, 64)"/>'
        "<label>  Home\n </label></desktop-frame>"
    )
    tree = parse_atspi_xml(xml)
    nodes = [(f.depth, f.node.role, f.node.name, f.node.bounds) for f in tree.flatten()]
    assert nodes == [
        (0, "desktop-frame", "main", None),
        (1, "push-button", "Files", (0, 33, 70, 97)),
        (1, "label", "Home", None),
    ]
    assert tree.nodes[1].attrs == {"focused": "true"}
    with pytest.raises(BadInputError, match="DTD"):
        parse_atspi_xml('<!DOCTYPE r [<!ENTITY x "y">]><desktop-frame name="&x;"/>')


def test_recorded_axtree_and_html(recorded_root: Path) -> None:
    episodes = json.loads(
        (recorded_root / "web" / "agentlab-miniwob" / "derived_episodes.json").read_text("utf-8")
    )
    step = episodes[0]["steps"][0]
    axtree = parse_axtree(step["axtree_txt"]).flatten()
    assert axtree[0].node.role == "RootWebArea"
    checkbox = next(f.node for f in axtree if f.node.node_id == "18")
    assert (checkbox.role, checkbox.name, checkbox.attrs["checked"]) == (
        "checkbox",
        "SQkB",
        "false",
    )
    assert next(f for f in axtree if f.node.node_id == "18").depth == 3
    html = parse_html_tree(step["pruned_html"]).flatten()
    assert any(f.node.node_id == "18" and f.node.role == "input" for f in html)


def test_axtree_line_details() -> None:
    text = "[5] textbox \"it's\", focused, value='a, b', required\n\t[6] StaticText 'x\\'y'"
    nodes = [f.node for f in parse_axtree(text).flatten()]
    assert nodes[0].name == "it's"
    assert nodes[0].attrs == {"focused": "", "value": "a, b", "required": ""}
    assert nodes[1].name == "x'y"


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        ("axtree", "[1] button 'ok'", "axtree"),
        ("axtree", "<html><body/></html>", "html"),
        ("html", "RootWebArea 'x'", "axtree"),
        ("a11y_tree", '{"Name": "x", "ControlType": "Pane"}', "uia_json"),
        ("a11y_tree", "tag\tname\n", "osworld_table"),
        ("a11y_tree", "<desktop-frame/>", "atspi_xml"),
        ("android_xml", "\ufeff<hierarchy/>", "android_xml"),
        ("android_xml", '[{"class": "x"}]', "android_json"),
        ("android_json", "<hierarchy/>", "android_xml"),
    ],
)
def test_format_detection(kind: str, text: str, expected: str) -> None:
    assert detect_format(kind, text) == expected


def test_forest_gets_a_synthetic_root() -> None:
    tree = parse_tree("axtree", "[1] button 'a'\n[2] button 'b'")
    assert tree.root.role == ROOT_ROLE
    assert [f.node.name for f in tree.flatten()] == ["a", "b"]
