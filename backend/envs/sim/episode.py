"""What an episode is made of: where it starts, how it runs, what a step returns.

Kept apart from `world` (the environment itself) so that tasks, agents, the Gymnasium and
OpenEnv faces and the rollout runner share these types without the stepping machinery.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from backend.envs.live.base import LiveConfig
from backend.envs.live.pool import LivePool
from backend.errors import BadInputError
from backend.types import HistoryMode, PromptContext, SamplingParams, Trajectory

Backing = Literal["sim", "live", "shadow"]
BACKINGS: tuple[Backing, ...] = ("sim", "live", "shadow")
SESSION_KIND = "rollout"
INVALID_PREFIX = "Invalid action: "


def backing_named(name: str) -> Backing:
    """The backing called `name`.

    Raises:
        BadInputError: not sim, live or shadow.
    """
    for backing in BACKINGS:
        if backing == name:
            return backing
    raise BadInputError(f"The environment must be sim, live or shadow, not {name!r}.")


@dataclass(frozen=True)
class EpisodeSpec:
    """Where an episode starts.

    Attributes:
        domain: the domain name.
        task: the agent's task.
        initial_state: the observation before the first action (None: blank, or the live one).
        context: tools and task for the world model's prompt and the action checks.
        trajectory: a recording the episode follows: its start state, and its observations as
            the per-step reference (the `reference` reward) and its actions for `replay` agents.
        live_task: the live environment's task to start (live and shadow backings).
    """

    domain: str
    task: str = ""
    initial_state: str | None = None
    context: PromptContext = field(default_factory=PromptContext)
    trajectory: Trajectory | None = None
    live_task: str | None = None

    @classmethod
    def from_trajectory(cls, trajectory: Trajectory, live_task: str | None = None) -> EpisodeSpec:
        """An episode starting where a recording starts, with the recording as reference."""
        return cls(
            domain=trajectory.domain,
            task=trajectory.task,
            initial_state=trajectory.initial_state,
            context=trajectory.prompt_context(),
            trajectory=trajectory,
            live_task=live_task,
        )


@dataclass(frozen=True)
class EnvOptions:
    """How episodes run.

    Attributes:
        backing: sim, live or shadow.
        max_steps: steps before the episode is truncated.
        invalid_penalty: the reward of an invalid action is minus this.
        record: store every episode as a session (off for speed).
        params: the world model's sampling.
        history_mode: what the world model sees of the episode so far.
        live_config: limits of the live environment (live and shadow backings).
        live_pool: the one live budget each sandbox takes a place of (None: unbounded here,
            as in a test or a lone script).
        live_owner: whose share of that budget the episodes count against (None: the
            operator's, bound by the budget only).
    """

    backing: Backing = "sim"
    max_steps: int = 10
    invalid_penalty: float = 1.0
    record: bool = True
    params: SamplingParams = field(default_factory=SamplingParams)
    history_mode: HistoryMode = HistoryMode.TEACHER_FORCED
    live_config: LiveConfig | None = None
    live_pool: LivePool | None = None
    live_owner: str | None = None


@dataclass(frozen=True)
class StepResult:
    """What `step` returns, in Gymnasium's order plus the info dictionary."""

    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]
