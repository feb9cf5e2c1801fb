"""Every compare-and-agree statistic against a small example worked out by hand."""

from __future__ import annotations

import math
import random

import pytest
from scipy.stats import binomtest

from backend.compare.agreement import alpha, pair_agreement, people_agreement
from backend.compare.agreement_report import (
    Disagreement,
    ItemCounts,
    RatingCounts,
    VerdictCount,
    agreement_report,
)
from backend.compare.bradley_terry import Battle, ratings
from backend.compare.contenders import contender_label, draw_pair, parse_contenders
from backend.compare.futures import spread
from backend.compare.rates import indistinguishability, wilson_interval
from backend.compare.report import ALL, BattleCount, RealCount, arena_report
from backend.errors import BadInputError
from backend.stepping import Sample, sample_requests, score
from backend.types import SamplingParams, SimRequest


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (7, 9), (50, 100)])
def test_wilson_interval_is_scipys(k: int, n: int) -> None:
    low, high = wilson_interval([k], [n])
    expected = binomtest(k, n).proportion_ci(method="wilson")
    assert low[0] == pytest.approx(expected.low) and high[0] == pytest.approx(expected.high)


def test_indistinguishability_counts_cannot_tell_as_half() -> None:
    # 2 fooled + 2 can't tell (1 win) out of 8 votes: 3/8. 50% means indistinguishable.
    [rate, none] = indistinguishability([2, 0], [2, 0], [4, 0])
    assert (rate.votes, rate.rate) == (8, 0.375)
    assert rate.low is not None and rate.high is not None and rate.low < 0.375 < rate.high
    assert none.rate is None and none.low is None


def test_bradley_terry_matches_the_hand_computed_odds() -> None:
    # A won 3 of 4: P(A beats B) = 3/4, so R_A - R_B = 400 log10(3) = 190.85, centred on 1000.
    top, bottom = ratings([Battle("A", "B", 3, 1, 0)], rounds=0, prior=0.0)
    assert (top.contender, bottom.contender) == ("A", "B")
    assert top.rating - bottom.rating == pytest.approx(400 * math.log10(3), abs=0.01)
    assert top.rating + bottom.rating == pytest.approx(2000)
    # A tie is half a win each: 1 win + 1 tie is 1.5 : 0.5, the same odds.
    tied = ratings([Battle("A", "B", 1, 0, 1)], rounds=0, prior=0.0)
    assert tied[0].rating - tied[1].rating == pytest.approx(400 * math.log10(3), abs=0.01)


def test_bootstrap_intervals_cover_the_rating_and_ranks_share_overlaps() -> None:
    battles = [
        Battle("strong", "weak", 40, 5, 5),
        Battle("mid", "weak", 10, 10, 0),
        Battle("strong", "mid", 30, 10, 0),
    ]
    board = ratings(battles, rounds=200, seed=1)
    assert [r.contender for r in board] == ["strong", "mid", "weak"]
    for r in board:
        assert r.low <= r.rating <= r.high
    assert board[0].rank == 1 and board[1].rank == 2
    assert ratings(battles, rounds=200, seed=1) == board  # seeded: reproducible


def test_a_contender_that_never_lost_keeps_a_finite_rating() -> None:
    [winner, loser] = ratings([Battle("A", "B", 5, 0, 0)], rounds=20)
    assert math.isfinite(winner.rating) and winner.rating > loser.rating


def test_kappa_spearman_and_alpha_on_hand_examples() -> None:
    # Pairs (1,1), (1,2), (2,2) x2. Observed agreement 3/4; chance 1/2: kappa = 0.5 (with
    # quadratic weights too: the single off-diagonal weight cancels). Spearman of the ranks
    # [1.5, 1.5, 3.5, 3.5] and [1, 3, 3, 3] is 2 / sqrt(12).
    result = pair_agreement([1, 1, 2], [1, 2, 2], [1, 1, 2])
    assert result.pairs == 4 and result.exact == 0.75
    assert result.kappa == pytest.approx(0.5)
    assert result.spearman == pytest.approx(2 / math.sqrt(12))
    # Items rated (1,1), (1,2), (2,2): coincidences o11 = o22 = 2, o12 = o21 = 1, n = 6;
    # Do = 2/6, De = 2*3*3/(6*5) = 0.6; alpha = 1 - (1/3)/0.6 = 4/9 (ordinal = nominal here).
    assert alpha([[2, 0, 0, 0, 0], [1, 1, 0, 0, 0], [0, 2, 0, 0, 0]]) == pytest.approx(4 / 9)
    assert alpha([[2, 0, 0, 0, 0]]) is None  # one item says nothing
    # The same items as pairs of people: (1,1), (1,2), (2,2): exact 2/3; both orders counted,
    # the table is [[2, 1], [1, 2]]: observed 4/6, chance 1/2, kappa = 1/3.
    people = people_agreement([[2, 0, 0, 0, 0], [1, 1, 0, 0, 0], [0, 2, 0, 0, 0]])
    assert (people.pairs, people.exact) == (3, pytest.approx(2 / 3))
    assert people.kappa == pytest.approx(1 / 3)
    constant = pair_agreement([3], [3], [4])
    assert constant.exact == 1.0 and constant.kappa is None and constant.spearman is None


def test_contenders_parse_label_and_draw() -> None:
    found = parse_contenders("transformers@0.6, transformers@1.2 ,openai:qwen, persistence")
    assert [c.spec for c in found] == [
        "transformers@0.6",
        "transformers@1.2",
        "openai:qwen",
        "persistence",
    ]
    assert found[1].params(SamplingParams()).temperature == 1.2
    with pytest.raises(BadInputError, match="two different"):
        parse_contenders("persistence, persistence")
    with pytest.raises(BadInputError, match="temperature"):
        parse_contenders("transformers@hot, persistence")
    assert contender_label("persistence", "baseline:persistence", 0.6) == "baseline:persistence"
    assert contender_label("transformers", "smol", 1.2) == "transformers/smol T=1.2"
    a, b = draw_pair(found, random.Random(0))
    assert a != b and {a, b} <= set(found)


def test_arena_report_pools_domains_and_sources() -> None:
    real = [
        RealCount("human", "e", "m", "web", 1, 0, 1),
        RealCount("human", "e", "m", "os", 0, 2, 0),
    ]
    battles = [
        BattleCount("human", "web", "x", "y", 2, 1, 0),
        BattleCount("judge", "web", "x", "y", 0, 3, 0),
    ]
    report = arena_report(real, battles, [], rounds=0)
    pooled = next(r for r in report.real if r.domain == ALL)
    assert (pooled.model, pooled.rate.votes, pooled.rate.rate) == ("e/m", 4, 0.5)
    human = report.leaderboard(ALL, "human")
    judge = report.leaderboard("web", "judge")
    assert human is not None and human.ratings[0].contender == "x"
    assert judge is not None and judge.ratings[0].contender == "y"


def test_agreement_report_pools_domains() -> None:
    judge = [
        RatingCounts("web", "format", [4], [4], [2]),
        RatingCounts("os", "format", [2], [4], [2]),
    ]
    report = agreement_report(
        judge,
        [ItemCounts("web", "format", [[0, 0, 0, 2, 0]])],
        [VerdictCount("web", "accept", "reject", 1)],
        [Disagreement(1, "ann", "os", "e", 2.0, 4.0, "reject")],
    )
    row = next(d for d in report.dimensions if d.domain == ALL)
    assert row.judge_human.pairs == 4 and row.judge_human.exact == 0.5
    assert report.domains() == [ALL, "os", "web"]
    assert report.confusion[0] == VerdictCount(ALL, "accept", "reject", 1)
    assert report.worst[0].gap == -2.0


def test_futures_seeds_and_spread(make_prediction) -> None:
    request = SimRequest(
        domain="terminal",
        action="ls",
        params=SamplingParams(seed=7),
        initial_state="$ ",
        reference="$ ls\na",
    )
    copies = sample_requests(request, 3)
    assert [r.params.seed for r in copies] == [7, 8, 9]
    with pytest.raises(BadInputError):
        sample_requests(request, 9)
    samples = []
    for copy, text in zip(copies, ["$ ls\na", "$ ls\na ", "$ ls\nb"], strict=True):
        prediction = make_prediction(text)
        samples.append(Sample(copy, prediction, score(copy, prediction)))
    result = spread("terminal", samples, "$ ")
    assert (result.samples, result.distinct, result.largest) == (3, 2, 2)
    assert result.with_real is not None and result.mutual is not None
    # Each sample's score against the truth is the one the step path gave it, not a rescore.
    expected = [s.scores.headline for s in samples]
    assert result.with_real == pytest.approx(sum(x for x in expected if x is not None) / 3)
    blind = [
        Sample(s.request.model_copy(update={"reference": None}), s.prediction, s.scores)
        for s in samples
    ]
    assert spread("terminal", blind, "$ ").with_real is None
