"""Word counting for plain text."""

from wordfreq.counter import top_words, words

__all__ = ["top_words", "words"]
