"""Terminal screens: ANSI SGR colours become spans; every other control sequence is dropped.

The screen text is untrusted, so colours are mapped to fixed CSS classes or to `#rrggbb` values
computed here from integers, never copied from the input. A flood of escape codes is bounded:
after `MAX_STYLE_CHANGES` the rest of the screen is shown uncoloured.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ui.renderers.base import esc, notice, register

MAX_STYLE_CHANGES = 2_000
_ESCAPE = re.compile(
    r"\x1b\[([0-9;:?<=>]*)[ -/]*([@-~])"  # CSI, with SGR when the final byte is "m"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC (window titles, hyperlinks)
    r"|\x1b[@-_]?"  # any other escape, or a lone ESC
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@dataclass(frozen=True)
class Style:
    """The SGR state that applies to the text that follows."""

    fg: str = ""
    bg: str = ""
    bold: bool = False
    dim: bool = False
    italic: bool = False
    underline: bool = False
    inverse: bool = False

    def open_tag(self) -> str:
        """Return the span that shows text in this style, or "" for the default style."""
        classes = [name for name in ("bold", "dim", "italic", "underline") if getattr(self, name)]
        fg, bg = (self.bg, self.fg) if self.inverse else (self.fg, self.bg)
        styles: list[str] = []
        for colour, prop, prefix in ((fg, "color", "fg"), (bg, "background-color", "bg")):
            if colour.startswith("#"):
                styles.append(f"{prop}:{colour}")
            elif colour:
                classes.append(f"{prefix}{colour}")
        if self.inverse and not (fg or bg):
            classes.append("inverse")
        if not classes and not styles:
            return ""
        cls = " ".join(f"awp-{c}" for c in classes)
        style = f' style="{";".join(styles)}"' if styles else ""
        return f'<span class="{cls}"{style}>'


def _xterm_colour(index: int) -> str:
    """Return the colour of xterm palette entry `index` (0-15 as classes, others as hex)."""
    if index < 16:
        return str(index)
    if index < 232:
        index -= 16
        levels = [0 if v == 0 else 55 + 40 * v for v in (index // 36, index // 6 % 6, index % 6)]
        return "#" + "".join(f"{v:02x}" for v in levels)
    grey = min(8 + 10 * (index - 232), 255)
    return f"#{grey:02x}{grey:02x}{grey:02x}"


def _extended(codes: list[int], pos: int) -> tuple[str, int]:
    """Parse `38;5;n` or `38;2;r;g;b` starting after the 38/48; returns (colour, next index)."""
    if pos < len(codes) and codes[pos] == 5 and pos + 1 < len(codes):
        return _xterm_colour(min(codes[pos + 1], 255)), pos + 2
    if pos < len(codes) and codes[pos] == 2 and pos + 3 < len(codes):
        r, g, b = (min(c, 255) for c in codes[pos + 1 : pos + 4])
        return f"#{r:02x}{g:02x}{b:02x}", pos + 4
    return "", len(codes)


_FLAGS = {
    1: ("bold", True),
    2: ("dim", True),
    3: ("italic", True),
    4: ("underline", True),
    7: ("inverse", True),
    22: ("bold", False),
    23: ("italic", False),
    24: ("underline", False),
    27: ("inverse", False),
}


def apply_sgr(style: Style, params: str) -> Style:
    """Return the style after one SGR sequence with parameter string `params`."""
    codes = [int(p) if p.isdigit() else 0 for p in re.split("[;:]", params)] if params else [0]
    i = 0
    while i < len(codes):
        code = codes[i]
        i += 1
        if code == 0:
            style = Style()
        elif code in _FLAGS:
            name, value = _FLAGS[code]
            changes: dict[str, Any] = {name: value, **({"dim": False} if code == 22 else {})}
            style = replace(style, **changes)
        elif 30 <= code <= 37 or 90 <= code <= 97:
            style = replace(style, fg=str(code - 30 if code < 90 else code - 82))
        elif 40 <= code <= 47 or 100 <= code <= 107:
            style = replace(style, bg=str(code - 40 if code < 100 else code - 92))
        elif code in (38, 48):
            colour, i = _extended(codes, i)
            style = replace(style, fg=colour) if code == 38 else replace(style, bg=colour)
        elif code == 39:
            style = replace(style, fg="")
        elif code == 49:
            style = replace(style, bg="")
    return style


def _overstrike(text: str) -> str:
    """Apply carriage returns the way a terminal does: later text overwrites the line start."""
    lines = []
    for line in text.replace("\r\n", "\n").split("\n"):
        result = ""
        for part in line.split("\r"):
            result = part + result[len(part) :]
        lines.append(result)
    return "\n".join(lines)


def ansi_to_html(text: str) -> tuple[str, bool]:
    """Convert ANSI text to escaped HTML spans; returns (html, whether colours were cut off)."""
    out: list[str] = []
    style = Style()
    changes = 0
    pos = 0
    for match in _ESCAPE.finditer(text):
        out.append(esc(_CONTROL.sub("", text[pos : match.start()])))
        pos = match.end()
        if match.group(2) != "m" or changes > MAX_STYLE_CHANGES:
            continue
        new = apply_sgr(style, match.group(1) or "")
        if new != style:
            changes += 1
            out.append("</span>" if style.open_tag() else "")
            style = new if changes <= MAX_STYLE_CHANGES else Style()
            out.append(style.open_tag())
    out.append(esc(_CONTROL.sub("", text[pos:])))
    if style.open_tag():
        out.append("</span>")
    return "".join(out), changes > MAX_STYLE_CHANGES


@register("terminal")
def render_terminal(text: str, previous: str | None = None) -> str:
    """Render a terminal screen in colour; `previous` is unused (screens diff as text)."""
    body, flooded = ansi_to_html(_overstrike(text))
    warning = notice("Too many colour changes; the rest is shown uncoloured.") if flooded else ""
    return f'{warning}<pre class="awp-term">{body}</pre>'
