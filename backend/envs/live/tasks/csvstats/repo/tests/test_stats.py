"""Tests of column_mean."""

from csvstats import column_mean


def test_mean_of_a_column():
    """The header is no value."""
    assert column_mean("price\n2\n4\n", "price") == 3.0


def test_other_columns_are_ignored():
    """Only the named column counts."""
    assert column_mean("item,price\nmug,1\npot,5\n", "price") == 3.0
