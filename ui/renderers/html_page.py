"""HTML/DOM observations: shown only inside a sandboxed iframe, with the source beside it.

The page comes from a model or a recorded site, so it must not run. `sandbox=""` (no
`allow-scripts`, no `allow-same-origin`) stops scripts, forms, popups and access to our origin;
the markup travels in `srcdoc`, attribute-escaped, so `</iframe>` in the page cannot end the
frame early. A CSP meta tag in front also blocks network loads (tracking pixels, remote CSS).
"""

from __future__ import annotations

from ui.renderers.base import esc, pre, register

CSP = (
    '<meta http-equiv="Content-Security-Policy" '
    "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:\">"
)


def sandboxed_iframe(markup: str, title: str = "Rendered page") -> str:
    """Return an iframe that shows `markup` with scripts, forms, popups and network off."""
    return (
        f'<iframe class="awp-frame" sandbox="" referrerpolicy="no-referrer" '
        f'title="{esc(title)}" srcdoc="{esc(CSP + markup)}"></iframe>'
    )


@register("html")
def render_html(text: str, previous: str | None = None) -> str:
    """Render the page in a sandbox next to its escaped source."""
    return (
        '<div class="awp-split">'
        f'<div class="awp-pane"><div class="awp-pane-title">Rendered (sandboxed)</div>'
        f"{sandboxed_iframe(text)}</div>"
        f'<div class="awp-pane"><div class="awp-pane-title">Source</div>'
        f"{pre(text, 'awp-source')}</div>"
        "</div>"
    )
