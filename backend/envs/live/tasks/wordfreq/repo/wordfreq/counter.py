"""Split text into words and count them."""

import re
from collections import Counter

_WORD = re.compile(r"[a-z']+")


def words(text: str) -> list[str]:
    """Return the words of `text` in order, in lower case."""
    return _WORD.findall(text)


def top_words(text: str, n: int) -> list[tuple[str, int]]:
    """Return the `n` most common words with their counts, most common first.

    Ties are broken alphabetically so that the result does not depend on word order.
    """
    counts = Counter(words(text))
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]
