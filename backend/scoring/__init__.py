"""Deterministic metrics, the rubric judge and reward combination."""

from backend.scoring.base import MetricResult
from backend.scoring.score import headline_metric, score_observation

__all__ = ["MetricResult", "headline_metric", "score_observation"]
