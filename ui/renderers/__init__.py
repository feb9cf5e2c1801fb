"""Pure renderers: observation text in, safe HTML out, looked up by a domain's renderer name.

Importing this package registers every built-in renderer.
"""

from __future__ import annotations

from ui.renderers import html_page, json_view, search, terminal, text, trees
from ui.renderers.base import RENDERERS, render
from ui.renderers.diff import render_diff

BUILTIN = (html_page, json_view, search, terminal, text, trees)

__all__ = ["BUILTIN", "RENDERERS", "render", "render_diff"]
