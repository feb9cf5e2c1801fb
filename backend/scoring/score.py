"""The scoring entry points other layers call: score one prediction, name a domain's headline."""

from __future__ import annotations

from backend.domains.base import MetricSet, get_domain
from backend.errors import UnknownNameError

# Importing the metric modules registers their metrics in METRICS.
from backend.scoring import json_metrics, screen, search, text, tree_metrics  # noqa: F401
from backend.scoring.base import METRICS, MetricResult, checked_pair


def metric_set(domain: str) -> MetricSet:
    """The metric set `domain` declares (`Domain.metrics`).

    Raises:
        UnknownNameError: no such domain, or it declares no metric set.
    """
    metrics = get_domain(domain).metrics
    if metrics is None:
        raise UnknownNameError(f"Domain {domain!r} declares no metric set.")
    return metrics


def score_observation(
    domain: str, predicted: str, reference: str, previous: str | None = None
) -> list[MetricResult]:
    """Compute every default metric of `domain` for one prediction.

    Args:
        domain: a registered domain name (terminal, swe, mcp, search, web, os, android).
        predicted: the predicted observation (after the official output rules).
        reference: the real observation.
        previous: the observation before the action; tree domains use it for change F1.

    Returns:
        One MetricResult per metric of the domain's set, in the set's order.

    Raises:
        UnknownNameError: the domain is not registered.
        BadInputError: an input is too large, or the reference (or previous state) is not a
            parsable observation of the domain's kind. A malformed PREDICTION never raises: it
            scores low and its parse error is reported in the details.
    """
    names = metric_set(domain).metrics
    pair = checked_pair(get_domain(domain).observation_kind, predicted, reference, previous)
    return [METRICS.get(name)(pair) for name in names]


def headline_metric(domain: str) -> str:
    """The name of the one metric a per-domain table shows for `domain`.

    Raises:
        UnknownNameError: the domain has no metric set.
    """
    return metric_set(domain).headline
