"""Tests of slugify."""

from slugify import slugify


def test_words_are_joined_by_dashes():
    """Spaces between words become dashes."""
    assert slugify("Two Words") == "two-words"


def test_punctuation_and_spaces_make_one_dash():
    """A run of punctuation and spaces is one dash."""
    assert slugify("Hello, World!") == "hello-world"
