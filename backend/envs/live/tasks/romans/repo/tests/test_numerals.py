"""Tests of from_roman."""

from romans import from_roman


def test_additive_numerals():
    """Letters in falling order add up."""
    assert from_roman("XVI") == 16


def test_subtractive_numerals():
    """A smaller letter before a larger one is subtracted."""
    assert from_roman("XIV") == 14
