"""Closed-interval arithmetic."""

from intervals.merge import covered, merge

__all__ = ["covered", "merge"]
