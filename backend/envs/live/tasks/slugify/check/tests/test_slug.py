"""Tests of slugify."""

from slugify import slugify


def test_words_are_joined_by_dashes():
    """Spaces between words become dashes."""
    assert slugify("Two Words") == "two-words"


def test_punctuation_and_spaces_make_one_dash():
    """A run of punctuation and spaces is one dash."""
    assert slugify("Hello, World!") == "hello-world"


def test_no_dash_at_the_ends():
    """Hidden: leading and trailing punctuation leaves no dash."""
    assert slugify("  --Ready?? Set... Go!  ") == "ready-set-go"


def test_digits_stay():
    """Hidden: digits are kept."""
    assert slugify("Top 10 Tips") == "top-10-tips"
