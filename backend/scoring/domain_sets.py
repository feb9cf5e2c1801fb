"""Each domain's default metric set and its one headline metric, registered by domain name.

The headline is the number a per-domain table shows. For tree domains it is change F1, the only
tree metric a copy of the previous state cannot game; for text domains the patience similarity,
which gives partial credit where exact match is almost always 0 on long outputs.
"""

from __future__ import annotations

from dataclasses import dataclass

from backend.registry import Registry

# Importing the metric modules registers their metrics in METRICS.
from backend.scoring import json_metrics, screen, search, text, tree_metrics  # noqa: F401
from backend.scoring.base import METRICS


@dataclass(frozen=True)
class MetricSet:
    """The metrics computed for a domain, in display order, and the headline among them."""

    metrics: tuple[str, ...]
    headline: str

    def __post_init__(self) -> None:
        for name in self.metrics:
            METRICS.get(name)
        if self.headline not in self.metrics:
            raise ValueError(f"headline {self.headline!r} is not in {self.metrics}")


DOMAIN_SETS: Registry[MetricSet] = Registry("domain metric set")

_TEXT = ("text_exact", "text_similarity", "line_f1")
_TREE = ("text_exact", "node_f1", "tree_edit_similarity", "change_f1")

DOMAIN_SETS.register(
    "terminal",
    MetricSet(("screen_exact", "screen_similarity", "screen_line_f1", *_TEXT), "screen_similarity"),
)
DOMAIN_SETS.register("swe", MetricSet(_TEXT, "text_similarity"))
DOMAIN_SETS.register(
    "mcp",
    MetricSet(("json_valid", "json_kv_f1", "json_kv_f1_tol10", *_TEXT), "json_kv_f1"),
)
DOMAIN_SETS.register("search", MetricSet(("search_overlap", *_TEXT), "search_overlap"))
DOMAIN_SETS.register("web", MetricSet(_TREE, "change_f1"))
DOMAIN_SETS.register("os", MetricSet(_TREE, "change_f1"))
DOMAIN_SETS.register("android", MetricSet(_TREE, "change_f1"))
