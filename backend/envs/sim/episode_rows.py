"""The rows of `rollouts.jsonl`: one episode a line, with its steps.

Apart from `backend.envs.sim.report` because the honesty meter and the leaderboard read
episodes and the report's summary holds both: kept there, the rows made a cycle.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

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
