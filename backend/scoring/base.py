"""Metric results, metric definitions and the shared input every metric reads.

Metrics are plain functions registered by name with a version; the version goes into every
stored result so a score computed by an older formula is never compared with a newer one.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from pydantic import BaseModel, Field

from backend.errors import BadInputError
from backend.registry import Registry
from backend.scoring.nodes import Tree, check_size, synthetic_root
from backend.scoring.parsers import parse_tree


class MetricResult(BaseModel):
    """One metric's verdict on one prediction.

    Attributes:
        name: registry name of the metric.
        version: the metric's formula version.
        value: the score in [0, 1]; 1 is a perfect prediction.
        details: what the value was computed from (counts, precision/recall, method used,
            raw values beside normalised ones), JSON-serialisable.
    """

    name: str
    version: int
    value: float = Field(ge=0.0, le=1.0)
    details: dict[str, Any] = Field(default_factory=dict)


@dataclass
class ObservationPair:
    """A prediction, the real observation and the state before the action, with cached parses.

    Several metrics of one domain parse the same texts; the cache makes that happen once.

    Attributes:
        kind: the domain's observation kind (picks the tree parser family).
        predicted: the predicted observation.
        reference: the real observation.
        previous: the observation before the action, when known.
    """

    kind: str
    predicted: str
    reference: str
    previous: str | None = None
    errors: dict[str, str] = field(default_factory=dict)

    @cached_property
    def reference_tree(self) -> Tree:
        """The real observation as a tree; a malformed reference is the data's fault and raises."""
        return parse_tree(self.kind, self.reference)

    @cached_property
    def predicted_tree(self) -> Tree:
        """The prediction as a tree; a malformed prediction scores as an empty tree.

        A prediction that repeats the previous state (persistence, a model that copies) or the
        truth (the oracle) is that tree: parsed once, and matched once against the others.
        """
        if self.predicted == self.reference:
            return self.reference_tree
        if self.previous is not None and self.predicted == self.previous:
            try:
                previous = self.previous_tree
            except BadInputError:
                previous = None  # the data's fault; the prediction still scores as a lenient parse
            if previous is not None:
                return previous
        return self._lenient(self.predicted, "predicted")

    @cached_property
    def previous_tree(self) -> Tree | None:
        """The previous state as a tree, or None when unknown."""
        return None if self.previous is None else parse_tree(self.kind, self.previous)

    def _lenient(self, text: str, role: str) -> Tree:
        try:
            return parse_tree(self.kind, text)
        except BadInputError as exc:
            self.errors[role] = str(exc)
            return Tree(root=synthetic_root([]), fmt="unparsable")


MetricFn = Callable[[ObservationPair], tuple[float, dict[str, Any]]]


@dataclass(frozen=True)
class Metric:
    """A named, versioned metric.

    Attributes:
        name: registry key.
        version: bumped whenever the formula changes.
        fn: computes (value, details) from an ObservationPair.
        description: one line for tables and the UI.
        symmetric: swapping prediction and reference never changes the value (tested).
    """

    name: str
    version: int
    fn: MetricFn
    description: str
    symmetric: bool = False

    def __call__(self, pair: ObservationPair) -> MetricResult:
        """Compute the metric and wrap it; parse errors of the prediction go into details."""
        with paused_gc():
            value, details = self.fn(pair)
        if pair.errors:
            details = {**details, "parse_errors": dict(pair.errors)}
        return MetricResult(
            name=self.name, version=self.version, value=min(1.0, max(0.0, value)), details=details
        )


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a metric runs.

    Parsing a large page creates hundreds of thousands of nodes, and every few hundred new
    objects Python's collector walks the young ones and, periodically, ALL of them: about half
    the time of a tree metric on a 2 MB page went to collections that found nothing. Nodes,
    trees and the metric's intermediates form no reference cycles, so reference counting frees
    them; anything cyclic is merely collected later. The collector's prior state is restored.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


METRICS: Registry[Metric] = Registry("metric")


def metric(
    name: str, version: int, description: str, symmetric: bool = False
) -> Callable[[MetricFn], MetricFn]:
    """Decorator: register a metric function under `name` in METRICS."""

    def wrap(fn: MetricFn) -> MetricFn:
        METRICS.register(name, Metric(name, version, fn, description, symmetric))
        return fn

    return wrap


def f1(precision: float, recall: float) -> float:
    """Harmonic mean, 0 when both are 0."""
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def prf(matched: float, n_predicted: int, n_reference: int) -> dict[str, float]:
    """Precision, recall and F1 from a matched count; two empty sides agree perfectly."""
    if n_predicted == 0 and n_reference == 0:
        return {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    precision = matched / n_predicted if n_predicted else 0.0
    recall = matched / n_reference if n_reference else 0.0
    return {"precision": precision, "recall": recall, "f1": f1(precision, recall)}


def change_agreement(matched: float, predicted: float, real: float, disagreement: float) -> float:
    """How well a predicted change agrees with the real one, net of what it gets wrong.

    `max(0, 2 * matched - wrong) / (predicted + real + disagreement)`, where `wrong` is what
    the prediction claims falsely: its new content that matches nothing real
    (`predicted - matched`) and the old content whose fate it got wrong (`disagreement`: what it
    dropped that reality kept, or kept that reality dropped). Two empty changes agree: 1.

    A plain Dice (`2 * matched / total`) only dilutes errors, so output that is mostly wrong still
    earns from whatever it happens to share: a 200-fold copy of the old screen holds the new
    prompt line, a garbled copy holds near-copies of it, a sentence of prose shares letters.
    Each of those outputs asserts far more falsehood than truth, and the persistence baseline,
    which asserts nothing, scores 0; charging the false claims against the true ones means only
    a change that is more right than wrong scores above it. Real content left out is not charged
    (it is the missing credit that dilutes), so a cautious prediction that gets part of the
    change right keeps that part. The oracle has nothing wrong and scores 1.

    Args:
        matched: size of the predicted new content that matches the real new content.
        predicted: size of the predicted new content.
        real: size of the real new content.
        disagreement: size of the old content one side dropped and the other kept.
    """
    total = predicted + real + disagreement
    if total == 0:
        return 1.0
    wrong = predicted - matched + disagreement
    return max(0.0, 2 * matched - wrong) / total


def checked_pair(
    kind: str, predicted: str, reference: str, previous: str | None
) -> ObservationPair:
    """Build a pair after refusing inputs too large to score safely.

    Raises:
        BadInputError: an input is larger than the parser limit.
    """
    for what, text in (("predicted", predicted), ("reference", reference), ("previous", previous)):
        if text is not None:
            check_size(text, what)
    return ObservationPair(kind, predicted, reference, previous)
