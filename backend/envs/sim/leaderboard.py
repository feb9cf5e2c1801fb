"""The policy leaderboard: do the simulator's rankings of agents hold in reality?

Several agents run on the same checkable tasks with `--sim-to-real`: each episode has a
simulated success (the check-as-action the world model predicts) and a real one (the live
check on the same actions). Agents are ranked by success rate on each side, and Spearman's rank
correlation between the two says whether the simulator orders policies as reality does, per
domain and overall, with a bootstrap 95% interval from resampling tasks (the published anchors:
WorldGym's r of about 0.78). A correlation is undefined (None) when either side ranks every
agent the same.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from statistics import fmean

from pydantic import BaseModel, Field
from scipy.stats import rankdata, spearmanr

from backend.envs.sim.episode_rows import EpisodeRow

ALL = "all"


class AgentScore(BaseModel):
    """One agent's success rates on one domain's checked episodes (or all of them)."""

    agent: str
    domain: str
    episodes: int
    sim_success: float
    live_success: float
    sim_rank: float = Field(description="1 is best; ties share the mean rank.")
    live_rank: float


class RankAgreement(BaseModel):
    """Spearman's rank correlation of sim against live success over the agents."""

    domain: str
    agents: int
    spearman: float | None
    low: float | None = Field(description="Bootstrap 2.5th percentile.")
    high: float | None = Field(description="Bootstrap 97.5th percentile.")


class Leaderboard(BaseModel):
    """Every agent's scores, per domain and overall, and the rank agreement of each."""

    bootstrap: int
    scores: list[AgentScore]
    agreement: list[RankAgreement]


Episode = tuple[str, str, str, bool, bool]
"""(agent, domain, task, simulated success, real success) of one checked episode."""


def _rates(episodes: Sequence[Episode], agents: Sequence[str]) -> tuple[list[float], list[float]]:
    sim, live = [], []
    for agent in agents:
        mine = [e for e in episodes if e[0] == agent]
        sim.append(fmean(float(e[3]) for e in mine) if mine else 0.0)
        live.append(fmean(float(e[4]) for e in mine) if mine else 0.0)
    return sim, live


def _spearman(sim: Sequence[float], live: Sequence[float]) -> float | None:
    if len(sim) < 2 or len(set(sim)) < 2 or len(set(live)) < 2:
        return None
    value = float(spearmanr(sim, live).statistic)
    return None if math.isnan(value) else value


def _agreement(
    domain: str, episodes: Sequence[Episode], agents: Sequence[str], rounds: int, seed: int
) -> RankAgreement:
    sim, live = _rates(episodes, agents)
    tasks = sorted({(e[1], e[2]) for e in episodes})
    rng = random.Random(seed)
    draws = []
    for _ in range(rounds):
        chosen = [rng.choice(tasks) for _ in tasks]
        sample = [e for task in chosen for e in episodes if (e[1], e[2]) == task]
        value = _spearman(*_rates(sample, agents))
        if value is not None:
            draws.append(value)
    draws.sort()
    low = draws[int(0.025 * (len(draws) - 1))] if draws else None
    high = draws[math.ceil(0.975 * (len(draws) - 1))] if draws else None
    return RankAgreement(
        domain=domain, agents=len(agents), spearman=_spearman(sim, live), low=low, high=high
    )


def leaderboard(
    rows: Sequence[EpisodeRow], rounds: int = 1000, seed: int = 0
) -> Leaderboard | None:
    """The leaderboard of a sim-to-real run of two agents or more (None otherwise).

    Only episodes whose both outcomes are known count, so every agent is judged on the same
    checked tasks.
    """
    episodes: list[Episode] = [
        (row.agent, row.domain, row.start, row.sim_check, row.real_success)
        for row in rows
        if row.sim_check is not None and row.real_success is not None
    ]
    agents = sorted({e[0] for e in episodes})
    if len(agents) < 2:
        return None
    scores: list[AgentScore] = []
    agreement: list[RankAgreement] = []
    domains = sorted({e[1] for e in episodes})
    for domain in [*domains, ALL]:
        mine = [e for e in episodes if domain in (ALL, e[1])]
        sim, live = _rates(mine, agents)
        sim_ranks, live_ranks = rankdata([-v for v in sim]), rankdata([-v for v in live])
        for i, agent in enumerate(agents):
            scores.append(
                AgentScore(
                    agent=agent,
                    domain=domain,
                    episodes=sum(1 for e in mine if e[0] == agent),
                    sim_success=sim[i],
                    live_success=live[i],
                    sim_rank=float(sim_ranks[i]),
                    live_rank=float(live_ranks[i]),
                )
            )
        agreement.append(_agreement(domain, mine, agents, rounds, seed))
    return Leaderboard(bootstrap=rounds, scores=scores, agreement=agreement)


BOARD_HEADERS = [
    "domain",
    "agent",
    "episodes",
    "sim success",
    "live success",
    "sim rank",
    "live rank",
]
RANK_HEADERS = ["domain", "agents", "Spearman", "95% low", "95% high"]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def board_table(board: Leaderboard) -> list[list[object]]:
    """The scores as rows under `BOARD_HEADERS`, best live success first in each domain."""
    ordered = sorted(board.scores, key=lambda s: (s.domain == ALL, s.domain, s.live_rank))
    return [
        [
            s.domain,
            s.agent,
            s.episodes,
            _round(s.sim_success),
            _round(s.live_success),
            s.sim_rank,
            s.live_rank,
        ]
        for s in ordered
    ]


def rank_table(board: Leaderboard) -> dict[str, object]:
    """The rank agreement as a Gradio table value (`headers` and `data`)."""
    data = [
        [a.domain, a.agents, _round(a.spearman), _round(a.low), _round(a.high)]
        for a in board.agreement
    ]
    return {"headers": RANK_HEADERS, "data": data}
