"""The scoring entry points other layers call: score one prediction, name a domain's headline."""

from __future__ import annotations

from backend.domains.base import get_domain
from backend.scoring.base import METRICS, MetricResult, checked_pair
from backend.scoring.domain_sets import DOMAIN_SETS


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
    metric_set = DOMAIN_SETS.get(domain)
    pair = checked_pair(get_domain(domain).observation_kind, predicted, reference, previous)
    return [METRICS.get(name)(pair) for name in metric_set.metrics]


def headline_metric(domain: str) -> str:
    """The name of the one metric a per-domain table shows for `domain`.

    Raises:
        UnknownNameError: the domain has no metric set.
    """
    return DOMAIN_SETS.get(domain).headline
