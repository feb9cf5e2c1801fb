"""What a rollout writes: `rollouts.jsonl` rows (one episode a line) and `summary.json`.

Versioned pydantic models, so the files' shape is pinned; `summarize` turns episodes into the
per-domain figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean
from typing import Any

from pydantic import BaseModel, Field

from backend.envs.sim.honesty import HonestyMeter, honesty_meter
from backend.envs.sim.leaderboard import Leaderboard, leaderboard

SCHEMA_VERSION = 1


class StepRow(BaseModel):
    """One step of an episode as `rollouts.jsonl` keeps it."""

    action: str
    observation: str
    reward: float
    fidelity: float | None = Field(
        default=None, description="Headline score of the prediction against reality, if known."
    )
    predicted: str | None = Field(default=None, description="The world model's prediction.")
    reference: str | None = Field(
        default=None, description="The real observation it was scored against (recorded or live)."
    )
    invalid: bool = False
    answered_by: str | None = Field(
        default=None, description="Who answered the step: model, record, executor or live."
    )
    divergence: float | None = Field(
        default=None, description="Sim-to-real: 1 - headline(simulated vs real observation)."
    )
    real_observation: str | None = None
    provenance: dict[str, Any] | None = Field(
        default=None,
        description="Where the answer's observation came from (`backend.provenance`).",
    )
    reference_provenance: dict[str, Any] | None = Field(
        default=None, description="Where the reference came from (a recording's turn, a live run)."
    )


class EpisodeRow(BaseModel):
    """One episode: a line of `rollouts.jsonl`."""

    schema_version: int = SCHEMA_VERSION
    episode: int
    domain: str
    start: str = Field(description="The recording's id, the live task, or `blank`.")
    task: str
    env: str
    agent: str
    reward_model: str
    steps: list[StepRow]
    total_reward: float
    success: bool | None
    terminated: bool
    truncated: bool
    world_model_tokens: int
    agent_tokens: int
    session_id: int | None
    real_success: bool | None = None
    outcome_agrees: bool | None = None
    real_session_id: int | None = None
    world: str | None = Field(default=None, description="The pinned world it ran in, if any.")
    sim_check: bool | None = Field(
        default=None, description="Sim-to-real: the check-as-action's predicted verdict."
    )
    real_reward: float | None = Field(
        default=None, description="Sim-to-real: the live environment's best reward in the replay."
    )
    replay_rewards: list[float] = Field(
        default_factory=list, description="Episode reward of each replay in simulation."
    )
    replay_fidelity: list[float | None] = Field(
        default_factory=list, description="Mean fidelity of each replay in simulation."
    )


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
