"""The metric sets the built-in domains declare (`Domain.metrics`), and why their headlines are.

The headline is the number a per-domain table shows, and it must separate doing nothing from
simulating: the persistence baseline (repeat the previous observation) scores near 0 on it and
the oracle 1. So every headline compares what the prediction CHANGED from the previous
observation with what really changed: change F1 for trees, delta similarity for screens and text
(backend.scoring.delta, with partial credit inside a changed line), delta key/value F1 for JSON
tool results, and the results a search list adds and drops. The plain similarities (and search's
result overlap) stay in the sets as secondary metrics.

A headline must also pay no junk more than persistence: nothing, prose, a truncated, garbled or
200-fold copy of the previous observation (backend.scoring.adversaries, tested on every bundled
step). So the change headlines pay nothing for removals both sides agree on (any output that is
not a copy removes things), charge what the prediction gets wrong against what it gets right
(`base.change_agreement`), and give partial credit inside a line only above a floor; an
unparsable tree scores 0.
"""

from __future__ import annotations

from backend.domains.base import MetricSet

_TEXT = ("text_exact", "text_similarity", "line_f1")
_SCREEN = ("screen_delta", "screen_exact", "screen_similarity", "screen_line_f1")
_TREE = ("text_exact", "node_f1", "tree_edit_similarity", "change_f1")

SCREEN = MetricSet((*_SCREEN, *_TEXT), "screen_delta")
TEXT = MetricSet(("text_delta", *_TEXT), "text_delta")
JSON = MetricSet(
    ("json_delta_f1", "json_valid", "json_kv_f1", "json_kv_f1_tol10", *_TEXT), "json_delta_f1"
)
SEARCH = MetricSet(("search_delta", "search_overlap", *_TEXT), "search_delta")
TREE = MetricSet(_TREE, "change_f1")
