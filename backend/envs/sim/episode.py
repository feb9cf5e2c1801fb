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

Backing = Literal["sim", "live", "shadow", "hybrid"]
BACKINGS: tuple[Backing, ...] = ("sim", "live", "shadow", "hybrid")
SESSION_KIND = "rollout"
INVALID_PREFIX = "Invalid action: "


def backing_named(name: str) -> Backing:
    """The backing called `name`.

    Raises:
        BadInputError: not one of BACKINGS.
    """
    for backing in BACKINGS:
        if backing == name:
            return backing
    raise BadInputError(f"The environment must be one of {', '.join(BACKINGS)}, not {name!r}.")


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
        live_task: the live environment's task to start (live, shadow and hybrid backings).
        system_prompt: the world model's system prompt, filled (None: the domain's).
        sampling: sampling fields a pinned world fixes (temperature, seed) over the options'.
        world: the pinned world's name, when one set this start (`backend.envs.sim.worlds`).
    """

    domain: str
    task: str = ""
    initial_state: str | None = None
    context: PromptContext = field(default_factory=PromptContext)
    trajectory: Trajectory | None = None
    live_task: str | None = None
    system_prompt: str | None = None
    sampling: dict[str, Any] = field(default_factory=dict)
    world: str | None = None

    def params(self, base: SamplingParams) -> SamplingParams:
        """`base` with what the start's world pins."""
        return base.model_copy(update=self.sampling) if self.sampling else base

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
        backing: sim, live, shadow or hybrid (the domain's routing policy picks who answers).
        max_steps: steps before the episode is truncated.
        invalid_penalty: the reward of an invalid action is minus this.
        record: store every episode as a session (off for speed).
        params: the world model's sampling.
        history_mode: what the world model sees of the episode so far.
        live_config: limits of the live environment.
        min_confidence: hybrid's selective simulation: a model prediction whose confidence is
            below this is not used; the live environment answers the step instead (0: off).
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
    min_confidence: float = 0.0
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
