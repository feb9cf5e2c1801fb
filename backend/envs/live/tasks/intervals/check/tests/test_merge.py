"""Tests of interval merging."""

from intervals import covered, merge


def test_overlapping_intervals_merge():
    """Intervals that overlap become one."""
    assert merge([(5, 8), (1, 4), (2, 6)]) == [(1, 8)]


def test_disjoint_intervals_stay_apart():
    """Intervals with a gap between them stay separate, sorted."""
    assert merge([(8, 9), (1, 2)]) == [(1, 2), (8, 9)]


def test_touching_intervals_merge():
    """Closed intervals sharing an end point overlap."""
    assert merge([(1, 3), (3, 5), (8, 9)]) == [(1, 5), (8, 9)]


def test_covered_counts_each_integer_once():
    """A shared end point is counted once."""
    assert covered([(1, 3), (3, 5)]) == 5


def test_touching_chain_merges_into_one():
    """Hidden: a chain of touching intervals becomes one."""
    assert merge([(5, 7), (1, 3), (3, 5)]) == [(1, 7)]
