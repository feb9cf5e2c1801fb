"""How alike two steps are: cheap lexical scorers over (state before, action), by name.

Chosen by measurement (`benchmarks/bench_grounding.py`, figures in Results): each method
ranks the real transitions of a domain for a step, and the top neighbour's real next state is
scored against the step's true next state with the domain's headline metric. All are small
inverted indexes written here (no new dependency); none needs a model.

- `bm25`: Okapi BM25 over the words of the action and the state before;
- `bm25_action`: BM25 over the words of the action alone;
- `tfidf_char`: cosine of TF-IDF vectors of character 3-grams of the action and the state before;
- `tfidf_char_action`: the same over the action alone (the default: it measured best, and
  every method that reads the state measured worse than its action-only twin).

A state is read from its last `STATE_CHARS` characters (where a screen's latest output is), so
a 2 MB page costs no more than a short one.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from backend.registry import Registry

STATE_CHARS = 2000
"""How much of the state before (its end) a method reads."""

_WORD = re.compile(r"\w+")
Features = Callable[[str, str], list[str]]
"""The terms of one step, from its state before and its action."""


def words(text: str) -> list[str]:
    """Lower-case word tokens."""
    return _WORD.findall(text.lower())


def char_grams(text: str, n: int = 3) -> list[str]:
    """Character n-grams of the lower-cased text with its whitespace runs collapsed."""
    flat = " ".join(text.lower().split())
    return [flat[i : i + n] for i in range(len(flat) - n + 1)]


def step_words(before: str, action: str) -> list[str]:
    """Words of the action and of the end of the state before."""
    return words(action) + words(before[-STATE_CHARS:])


def action_words(before: str, action: str) -> list[str]:
    """Words of the action alone."""
    return words(action)


def step_grams(before: str, action: str) -> list[str]:
    """Character 3-grams of the action and of the end of the state before."""
    return char_grams(action) + char_grams(before[-STATE_CHARS:])


def action_grams(before: str, action: str) -> list[str]:
    """Character 3-grams of the action alone."""
    return char_grams(action)


class BM25:
    """Okapi BM25 over term lists, with an inverted index so a query touches only its terms.

    Args:
        documents: the terms of each document.
        k1: term-frequency saturation.
        b: length normalisation.
    """

    def __init__(self, documents: Sequence[list[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.size = len(documents)
        lengths = [len(terms) for terms in documents]
        average = (sum(lengths) / self.size) if self.size else 0.0
        self._postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for doc, terms in enumerate(documents):
            norm = k1 * (1 - b + b * lengths[doc] / average) if average else k1
            for term, tf in Counter(terms).items():
                self._postings[term].append((doc, tf * (k1 + 1) / (tf + norm)))
        self._idf = {
            term: math.log(1 + (self.size - len(found) + 0.5) / (len(found) + 0.5))
            for term, found in self._postings.items()
        }

    def scores(self, query: list[str]) -> list[float]:
        """The score of every document for the query terms."""
        out = [0.0] * self.size
        for term in set(query):
            idf = self._idf.get(term, 0.0)
            for doc, weight in self._postings.get(term, ()):
                out[doc] += idf * weight
        return out


class TfIdfCosine:
    """Cosine similarity of sublinear TF-IDF vectors, over an inverted index.

    Args:
        documents: the terms of each document.
    """

    def __init__(self, documents: Sequence[list[str]]) -> None:
        self.size = len(documents)
        counts = [Counter(terms) for terms in documents]
        frequency: Counter[str] = Counter(term for count in counts for term in count)
        self._idf = {
            term: math.log((1 + self.size) / (1 + df)) + 1 for term, df in frequency.items()
        }
        self._postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for doc, count in enumerate(counts):
            vector = self._vector(count)
            for term, weight in vector.items():
                self._postings[term].append((doc, weight))

    def _vector(self, count: Counter[str]) -> dict[str, float]:
        raw = {
            term: (1 + math.log(tf)) * self._idf[term]
            for term, tf in count.items()
            if term in self._idf
        }
        norm = math.sqrt(sum(value * value for value in raw.values()))
        return {term: value / norm for term, value in raw.items()} if norm else {}

    def scores(self, query: list[str]) -> list[float]:
        """The cosine of every document with the query."""
        out = [0.0] * self.size
        for term, weight in self._vector(Counter(query)).items():
            for doc, value in self._postings.get(term, ()):
                out[doc] += weight * value
        return out


Scorer = BM25 | TfIdfCosine


@dataclass(frozen=True)
class Method:
    """A named similarity: which terms a step has and how they are weighted."""

    name: str
    features: Features
    build: Callable[[Sequence[list[str]]], Scorer]

    def index(self, steps: Sequence[tuple[str, str]]) -> SimilarityIndex:
        """An index over `(state before, action)` pairs."""
        return SimilarityIndex(self, self.build([self.features(b, a) for b, a in steps]))


@dataclass(frozen=True)
class SimilarityIndex:
    """A built index: scores every indexed step against a query step."""

    method: Method
    scorer: Scorer

    def scores(self, before: str, action: str) -> list[float]:
        """The similarity of each indexed step to `(before, action)`, higher is closer."""
        return self.scorer.scores(self.method.features(before, action))


METHODS: Registry[Method] = Registry("similarity method")
METHODS.register("bm25", Method("bm25", step_words, BM25))
METHODS.register("bm25_action", Method("bm25_action", action_words, BM25))
METHODS.register("tfidf_char", Method("tfidf_char", step_grams, TfIdfCosine))
METHODS.register("tfidf_char_action", Method("tfidf_char_action", action_grams, TfIdfCosine))
