"""Patience-diff alignment and similarity: the ONLY module that imports `patiencediff`.

`patiencediff` is GPL-2.0-or-later while this project is Apache-2.0. Keeping every import of it in
this one module keeps the dependency replaceable in one place (a permissive implementation of
the unique-LCS step would slot in behind `unique_lcs` below) and makes the licence question easy
to audit: nothing else in the code base may import `patiencediff`.

Only the package's unique-element LCS (its Rust core) is used. The recursion around it is ours
and iterative: the package's own matcher stops at a hard-coded depth of 10 (a Rust panic, not a
Python exception) on inputs with few unique elements, such as a line compared character by
character. Patience diff anchors on elements that occur once on each side, which is how people
read a changed terminal screen or log, and it is about two orders of magnitude faster than
`difflib.SequenceMatcher` on 10,000-line inputs (see benchmarks/bench_metrics.py).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from patiencediff import unique_lcs

CHAR_BLOCK_LIMIT = 4_000
"""A replaced block longer than this (in characters, per side) gets no character-level credit,
so one huge rewritten region cannot make the comparison slow."""


def align(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[tuple[int, int]]:
    """Patience alignment: sorted (i, j) pairs with a[i] == b[j], strictly increasing in both.

    Each region is handled by taking its equal prefix and suffix, then anchoring on the longest
    common subsequence of elements unique to both sides, then handling the gaps between anchors
    the same way. Regions without unique common elements stay unmatched (the patience rule).
    """
    pairs: list[tuple[int, int]] = []
    regions = [(0, len(a), 0, len(b))]
    while regions:
        alo, ahi, blo, bhi = regions.pop()
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            pairs.append((alo, blo))
            alo, blo = alo + 1, blo + 1
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
            pairs.append((ahi, bhi))
        if alo == ahi or blo == bhi:
            continue
        last_a, last_b = alo, blo
        for i, j in unique_lcs(a[alo:ahi], b[blo:bhi]):
            regions.append((last_a, alo + i, last_b, blo + j))
            pairs.append((alo + i, blo + j))
            last_a, last_b = alo + i + 1, blo + j + 1
        if (last_a, last_b) != (alo, blo):
            regions.append((last_a, ahi, last_b, bhi))
    pairs.sort()
    return pairs


def matched_items(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Number of items the patience alignment of `a` and `b` pairs as equal."""
    return len(align(a, b))


def similarity(a: str, b: str, region_floor: float = 0.0) -> tuple[float, dict[str, int]]:
    """Character-weighted patience similarity of two texts, in [0, 1].

    Lines are aligned with patience diff; equal lines count all their characters (plus the
    newline) as matched; each region of unmatched lines present on both sides is aligned again
    character by character, so a line with one changed digit keeps most of its credit. The
    value is `2 * M / (|a| + |b|)` with sizes counted as characters plus one newline per line,
    so identical texts score 1.

    Args:
        a: one text.
        b: the other text.
        region_floor: a replaced region earns its character matches only when they are at least
            this share of it (`2 * m / (|left| + |right|)`); below, they are the coincidences
            any two texts share (spaces, common letters) and count for nothing.

    Returns:
        (similarity, details with line and character counts; `partial_chars` is the part of
        `matched_chars` earned inside replaced regions).
    """
    a_lines, b_lines = a.split("\n"), b.split("\n")
    pairs = align(a_lines, b_lines)
    matched_chars = sum(len(a_lines[i]) + 1 for i, _ in pairs)
    partial_chars = 0
    last_a = last_b = 0
    for i, j in [*pairs, (len(a_lines), len(b_lines))]:
        if i > last_a and j > last_b:
            left, right = "\n".join(a_lines[last_a:i]), "\n".join(b_lines[last_b:j])
            if len(left) <= CHAR_BLOCK_LIMIT and len(right) <= CHAR_BLOCK_LIMIT:
                shared = matched_items(left, right)
                if 2 * shared >= region_floor * (len(left) + len(right)):
                    partial_chars += shared
        last_a, last_b = i + 1, j + 1
    details = {
        "equal_lines": len(pairs),
        "lines_predicted": len(a_lines),
        "lines_reference": len(b_lines),
        "matched_chars": matched_chars + partial_chars,
        "partial_chars": partial_chars,
    }
    matched_chars += partial_chars
    return 2 * matched_chars / (len(a) + len(b) + 2), details
