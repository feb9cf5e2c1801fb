"""Keyboard shortcuts for the Annotate page, installed once in the page head.

The script only clicks the page's own buttons by element id, and only while the Annotate tab is
visible, so typing elsewhere is never hijacked.
"""

from __future__ import annotations

HELP = (
    "Shortcuts: **Ctrl+Enter** submit & next · **Alt+N** skip · **Alt+A** accept · "
    "**Alt+R** reject · **Alt+C** cannot tell · **Alt+1…5** rate the focused dimension"
)

SCRIPT = """
<script>
document.addEventListener("keydown", (event) => {
  const submit = document.getElementById("an-submit");
  if (!submit || submit.offsetParent === null) return;
  const click = (selector) => {
    const target = document.querySelector(selector);
    if (target) { target.click(); event.preventDefault(); }
  };
  const key = event.key.toLowerCase();
  if ((event.ctrlKey || event.metaKey) && key === "enter") click("#an-submit");
  else if (event.altKey && key === "n") click("#an-skip");
  else if (event.altKey && key === "a") click("#an-verdict input[value='accept']");
  else if (event.altKey && key === "r") click("#an-verdict input[value='reject']");
  else if (event.altKey && key === "c") click("#an-verdict input[value='cannot_tell']");
  else if (event.altKey && "12345".includes(key)) {
    const row = document.activeElement && document.activeElement.closest(".an-rating");
    if (row) click(`#${row.id} input[value='${key}']`);
  }
});
</script>
"""
