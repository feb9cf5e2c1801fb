"""Tests of from_roman."""

from romans import from_roman


def test_additive_numerals():
    """Letters in falling order add up."""
    assert from_roman("XVI") == 16


def test_subtractive_numerals():
    """A smaller letter before a larger one is subtracted."""
    assert from_roman("XIV") == 14


def test_a_year():
    """Hidden: several subtractions in one numeral."""
    assert from_roman("MCMXCIV") == 1994


def test_lower_case():
    """Hidden: lower case reads the same."""
    assert from_roman("xc") == 90
