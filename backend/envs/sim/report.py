"""What a rollout writes: `rollouts.jsonl` rows (one episode a line) and `summary.json`.

Versioned pydantic models, so the files' shape is pinned (the rows themselves are in
`backend.envs.sim.episode_rows`, which the meters read too); `summarize` turns episodes into the
per-domain figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean

from pydantic import BaseModel, Field

from backend.envs.sim.episode_rows import SCHEMA_VERSION, EpisodeRow
from backend.envs.sim.honesty import HonestyMeter, honesty_meter
from backend.envs.sim.leaderboard import Leaderboard, leaderboard


class DomainSummary(BaseModel):
    """Per-domain figures of `summary.json`."""

    episodes: int
    success_rate: float | None
    mean_reward: float
    mean_steps: float
    invalid_rate: float
    fidelity: float | None = Field(description="Mean headline score of predictions vs reality.")
    divergence: float | None = Field(description="Sim-to-real mean per-step divergence.")
    outcome_agreement: float | None = Field(description="Sim-to-real outcome agreement rate.")
    world_model_tokens: int
    agent_tokens: int


class Summary(BaseModel):
    """`summary.json`: the run's settings and per-domain figures."""

    schema_version: int = SCHEMA_VERSION
    env: str
    agent: str
    world_model: str
    reward_model: str
    episodes: int
    domains: dict[str, DomainSummary]
    honesty: HonestyMeter | None = Field(
        default=None,
        description="Sim-to-real runs: the honesty meter (`backend.envs.sim.honesty`).",
    )
    leaderboard: Leaderboard | None = Field(
        default=None, description="Sim-to-real runs of several agents: the policy leaderboard."
    )


def _mean(values: Sequence[float]) -> float | None:
    return fmean(values) if values else None


def summarize(
    rows: Sequence[EpisodeRow],
    env: str,
    agent: str,
    world_model: str,
    reward_model: str,
    replays: int = 0,
) -> Summary:
    """Per-domain success rate, reward, steps, invalid actions, fidelity and sim-to-real gap."""
    domains: dict[str, DomainSummary] = {}
    for domain in sorted({row.domain for row in rows}):
        mine = [row for row in rows if row.domain == domain]
        steps = [step for row in mine for step in row.steps]
        known = [row.success for row in mine if row.success is not None]
        agreed = [row.outcome_agrees for row in mine if row.outcome_agrees is not None]
        fidelity = [s.fidelity for s in steps if s.fidelity is not None]
        divergence = [s.divergence for s in steps if s.divergence is not None]
        domains[domain] = DomainSummary(
            episodes=len(mine),
            success_rate=_mean([float(s) for s in known]),
            mean_reward=fmean(row.total_reward for row in mine),
            mean_steps=fmean(len(row.steps) for row in mine),
            invalid_rate=fmean(float(s.invalid) for s in steps) if steps else 0.0,
            fidelity=_mean(fidelity),
            divergence=_mean(divergence),
            outcome_agreement=_mean([float(a) for a in agreed]),
            world_model_tokens=sum(row.world_model_tokens for row in mine),
            agent_tokens=sum(row.agent_tokens for row in mine),
        )
    return Summary(
        env=env,
        agent=agent,
        world_model=world_model,
        reward_model=reward_model,
        episodes=len(rows),
        domains=domains,
        honesty=honesty_meter(rows, replays),
        leaderboard=leaderboard(rows),
    )
