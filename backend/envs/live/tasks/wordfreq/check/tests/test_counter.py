"""Tests of the word counter."""

from wordfreq import top_words, words


def test_words_splits_on_punctuation():
    """Punctuation separates words; apostrophes stay inside them."""
    assert words("don't stop, go") == ["don't", "stop", "go"]


def test_top_words_orders_by_count_then_name():
    """The most common word comes first; ties are alphabetical."""
    assert top_words("b a b c a b", 2) == [("b", 3), ("a", 2)]


def test_top_words_ignores_case():
    """Capitalised words count as the same word."""
    assert top_words("The cat and the hat", 1) == [("the", 2)]


def test_words_are_lower_case():
    """Hidden: every word comes back in lower case."""
    assert words("Hello WORLD") == ["hello", "world"]
