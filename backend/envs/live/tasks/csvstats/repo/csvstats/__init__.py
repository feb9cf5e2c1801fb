"""Statistics of CSV columns."""

from csvstats.stats import column_mean

__all__ = ["column_mean"]
