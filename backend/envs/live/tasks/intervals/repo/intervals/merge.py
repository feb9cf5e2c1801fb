"""Merge overlapping closed intervals."""

Interval = tuple[int, int]


def merge(intervals: list[Interval]) -> list[Interval]:
    """Merge overlapping closed intervals; the result is sorted by start."""
    merged: list[Interval] = []
    for start, end in sorted(intervals):
        if merged and start < merged[-1][1]:
            last_start, last_end = merged[-1]
            merged[-1] = (last_start, max(last_end, end))
        else:
            merged.append((start, end))
    return merged


def covered(intervals: list[Interval]) -> int:
    """Count the integers covered by at least one interval."""
    return sum(end - start + 1 for start, end in merge(intervals))
