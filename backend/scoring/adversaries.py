"""Junk outputs that no headline may pay more than persistence, and one plausible near-miss.

A world model trained on a reward learns whatever the reward pays for. Each output here is one
a lazy or broken model could learn to produce without simulating anything: nothing, a sentence
of prose, the previous observation, half of it, a garbled copy, an enormous copy. The persistence
baseline (the previous observation unchanged) is the floor a simulator must beat, so a metric
that pays any of these more than persistence on the same step can be gamed. The adversarial
test (tests/integration/test_scoring_adversarial.py) and the manual's table
(benchmarks/bench_adversarial.py) both use this one list.

The near-miss is the other side of the bargain: the real observation with one value changed
must keep a clearly positive score, or the metric has become a 0/1 exact match.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from backend.scoring.nodes import MAX_CHARS

Adversary = Callable[[str, random.Random], str]

PROSE = "The window closed and the screen now shows the result of the command."
EDIT_RATE = 20
"""One character in this many of the garbled copy is replaced (about 5%)."""
EDIT_CHARS = "abcxyz<>/ \n"
HUGE_REPEATS = 200


def garbled(previous: str, rng: random.Random) -> str:
    """The previous observation with about 5% of its characters replaced at random."""
    chars = list(previous)
    for _ in range(max(1, len(chars) // EDIT_RATE) if chars else 0):
        chars[rng.randrange(len(chars))] = rng.choice(EDIT_CHARS)
    return "".join(chars)


def huge(previous: str, rng: random.Random) -> str:
    """The previous observation repeated 200 times, kept under the scorers' size limit."""
    repeats = max(1, min(HUGE_REPEATS, MAX_CHARS // (len(previous) + 1)))
    return (previous + "\n") * repeats


ADVERSARIES: dict[str, Adversary] = {
    "empty": lambda previous, rng: "",
    "prose": lambda previous, rng: PROSE,
    "previous": lambda previous, rng: previous,
    "truncated": lambda previous, rng: previous[: len(previous) // 2],
    "edited": garbled,
    "huge": huge,
}
"""Adversary name -> output built from the previous observation ("" when it is unknown)."""

_VALUE = re.compile(r"""(?:=|: |\] \w+ )(["'])([A-Za-z][^"'\n<>]{1,80})\1""")


def near_miss(reference: str) -> str:
    """The real observation with one value changed: a prediction that is almost right.

    In a tree or JSON observation the middle quoted value (an attribute, a JSON string, an
    accessibility name) gets a different last letter, so the text still parses; in plain text
    the middle line is cut in half and ends in `zz`.
    """
    values = list(_VALUE.finditer(reference))
    if values:
        end = values[len(values) // 2].end(2)
        letter = "y" if reference[end - 1] == "z" else "z"
        return reference[: end - 1] + letter + reference[end:]
    lines = reference.split("\n")
    middle = len(lines) // 2
    lines[middle] = lines[middle][: len(lines[middle]) // 2] + "zz"
    return "\n".join(lines)
