"""Tree parsers by format, and per observation kind the rule that picks one from the text.

A domain's observation kind says which family a state belongs to (web pages, desktops, Android
screens); within a family the text itself says whether it is markup, JSON or line text, because
the same domain is recorded in several representations (BrowserGym axtree or HTML; UIA JSON,
OSWorld's table or AT-SPI XML; uiautomator XML or DroidBot JSON).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from backend.registry import Registry
from backend.scoring.nodes import Tree
from backend.scoring.parsers.android import parse_android_json, parse_android_xml
from backend.scoring.parsers.axtree import parse_axtree
from backend.scoring.parsers.desktop import parse_atspi_xml, parse_osworld_table, parse_uia_json
from backend.scoring.parsers.html import parse_html_tree
from backend.types import ObservationKind

TreeParser = Callable[[str], Tree]

TREE_PARSERS: Registry[TreeParser] = Registry("tree format")
TREE_PARSERS.register("axtree", parse_axtree)
TREE_PARSERS.register("html", parse_html_tree)
TREE_PARSERS.register("uia_json", parse_uia_json)
TREE_PARSERS.register("osworld_table", parse_osworld_table)
TREE_PARSERS.register("atspi_xml", parse_atspi_xml)
TREE_PARSERS.register("android_xml", parse_android_xml)
TREE_PARSERS.register("android_json", parse_android_json)


@dataclass(frozen=True)
class TreeFamily:
    """The formats one observation kind may arrive in, by the shape of the text."""

    markup: str
    json: str
    text: str


FAMILIES: Registry[TreeFamily] = Registry("tree observation kind")
_WEB = TreeFamily(markup="html", json="uia_json", text="axtree")
_ANDROID = TreeFamily(markup="android_xml", json="android_json", text="axtree")
FAMILIES.register(ObservationKind.AXTREE, _WEB)
FAMILIES.register(ObservationKind.HTML, _WEB)
_DESKTOP = TreeFamily(markup="atspi_xml", json="uia_json", text="osworld_table")
FAMILIES.register(ObservationKind.A11Y_TREE, _DESKTOP)
FAMILIES.register(ObservationKind.ANDROID_XML, _ANDROID)
FAMILIES.register(ObservationKind.ANDROID_JSON, _ANDROID)


def detect_format(kind: str, text: str) -> str:
    """The parser name for `text` of observation kind `kind`.

    `<` means markup, `{` or `[` followed by `{` means JSON; anything else is line text (an
    axtree line may start with `[bid]`, which is why a lone `[` is not JSON).

    Raises:
        UnknownNameError: `kind` is not a tree kind.
    """
    family = FAMILIES.get(kind)
    head = text.lstrip("\ufeff \t\r\n")[:64]
    if head.startswith("<"):
        return family.markup
    if head.startswith("{") or (head.startswith("[") and head[1:].lstrip().startswith(("{", "]"))):
        return family.json
    return family.text


def parse_tree(kind: str, text: str) -> Tree:
    """Parse an observation of a tree kind with the parser its text calls for.

    Raises:
        BadInputError: the observation is hostile or malformed for its format.
        UnknownNameError: `kind` is not a tree kind.
    """
    return TREE_PARSERS.get(detect_format(kind, text))(text)
