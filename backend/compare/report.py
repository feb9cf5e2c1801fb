"""The arena report: indistinguishability per model and domain, leaderboards, judge vs people.

Storage hands over vote counts grouped in SQL (the types below); this module turns them into the
figures every edge shows: the Real-or-not and Arena pages, and `awp arena report [--json]`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from backend.compare.bradley_terry import DEFAULT_ROUNDS, Battle, Rating, ratings
from backend.compare.contenders import contender_label
from backend.compare.rates import Rate, indistinguishability

ALL = "all"
"""The domain name of figures pooled over every domain."""


@dataclass(frozen=True)
class RealCount:
    """Votes of "Which one is real?" on one model in one domain, from people or the judge."""

    source: str
    engine: str
    model: str
    domain: str
    fooled: int
    cannot_tell: int
    spotted: int


@dataclass(frozen=True)
class BattleCount:
    """Arena votes on one ordered pairing in one domain, from people or the judge."""

    source: str
    domain: str
    contender_a: str
    contender_b: str
    wins_a: int
    wins_b: int
    ties: int


@dataclass(frozen=True)
class PairAgreementCount:
    """Battles both people and the judge decided (A or B) in one domain, and how often alike."""

    domain: str
    pairs: int
    same: int


@dataclass(frozen=True)
class ModelRate:
    """One model's indistinguishability in one domain (or `all`)."""

    model: str
    domain: str
    source: str
    rate: Rate


@dataclass(frozen=True)
class Leaderboard:
    """Bradley-Terry ratings of one domain (or `all`) from one source of votes."""

    domain: str
    source: str
    votes: int
    ratings: list[Rating]


@dataclass(frozen=True)
class JudgeVsPeople:
    """How often the judge picked what people picked on the same battles."""

    domain: str
    pairs: int
    same: int
    share: float | None


@dataclass(frozen=True)
class ArenaReport:
    """Everything `awp arena report` prints."""

    real: list[ModelRate]
    leaderboards: list[Leaderboard]
    judge_vs_people: list[JudgeVsPeople]

    def as_json(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return asdict(self)

    def leaderboard(self, domain: str = ALL, source: str = "human") -> Leaderboard | None:
        """The leaderboard of a domain and source, if it has votes."""
        return next(
            (b for b in self.leaderboards if b.domain == domain and b.source == source), None
        )


def _rates(counts: Sequence[RealCount]) -> list[ModelRate]:
    """Rates per (source, model, domain) and per (source, model) over all domains."""
    groups: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for c in counts:
        label = contender_label(c.engine, c.model, None)
        for domain in (c.domain, ALL):
            cell = groups[(c.source, label, domain)]
            cell[0] += c.fooled
            cell[1] += c.cannot_tell
            cell[2] += c.spotted
    keys = sorted(groups, key=lambda k: (k[0], k[1], k[2] != ALL, k[2]))
    values = [groups[k] for k in keys]
    rates = indistinguishability(*zip(*values, strict=True)) if values else []
    return [
        ModelRate(model=label, domain=domain, source=source, rate=rate)
        for (source, label, domain), rate in zip(keys, rates, strict=True)
    ]


def _boards(counts: Iterable[BattleCount], rounds: int) -> list[Leaderboard]:
    groups: dict[tuple[str, str], list[Battle]] = defaultdict(list)
    for c in counts:
        battle = Battle(c.contender_a, c.contender_b, c.wins_a, c.wins_b, c.ties)
        groups[(c.source, c.domain)].append(battle)
        groups[(c.source, ALL)].append(battle)
    boards = []
    for source, domain in sorted(groups, key=lambda k: (k[0], k[1] != ALL, k[1])):
        battles = groups[(source, domain)]
        boards.append(
            Leaderboard(
                domain=domain,
                source=source,
                votes=sum(b.votes for b in battles),
                ratings=ratings(battles, rounds=rounds),
            )
        )
    return boards


def _judge_vs_people(counts: Sequence[PairAgreementCount]) -> list[JudgeVsPeople]:
    if not counts:
        return []
    pooled = PairAgreementCount(ALL, sum(c.pairs for c in counts), sum(c.same for c in counts))
    return [
        JudgeVsPeople(c.domain, c.pairs, c.same, c.same / c.pairs if c.pairs else None)
        for c in (pooled, *counts)
    ]


def arena_report(
    real: Sequence[RealCount],
    battles: Sequence[BattleCount],
    judge_vs_people: Sequence[PairAgreementCount],
    rounds: int = DEFAULT_ROUNDS,
) -> ArenaReport:
    """Build the report from vote counts."""
    return ArenaReport(_rates(real), _boards(battles, rounds), _judge_vs_people(judge_vs_people))
