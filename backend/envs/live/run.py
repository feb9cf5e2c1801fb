"""A live environment in use: its task, its start state and every turn it took, as a trajectory.

Every caller of a live environment (the Playground, `awp simulate --live`, `awp record`,
rollouts) goes through a `LiveRun`, so every live session becomes the same kind of ground
truth: a `Trajectory` whose source is `live:<domain>`, carrying the environment's version and the
task it started from, which storage keeps beside the session and `awp record` writes as
AgentWorldBench rows.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

from backend.domains.base import DOMAINS
from backend.envs.live.base import LiveConfig, LiveEnvironment, LiveStep, Pictured, live_kind
from backend.errors import LiveEnvironmentError, UnknownNameError
from backend.sources import live
from backend.types import PromptContext, Trajectory, Turn

LIVE_LICENCE = "Apache-2.0 (recorded live by AgentWorld Playground)"


def live_source(domain: str) -> str:
    """The `source` of a trajectory recorded in a live environment of `domain`."""
    return f"live:{domain}"


def unavailable(domain: str) -> str:
    """Why `domain` has no live environment on this machine ("" when it has one)."""
    try:
        kind = live_kind(domain)
    except UnknownNameError:
        reason = DOMAINS.get(domain).recorded_only if domain in DOMAINS else ""
        return reason or f"The {domain} domain has no live environment."
    return kind.missing()


class LiveRun:
    """One live environment, the task it started from and the turns it took since.

    Not thread-safe: one caller acts at a time (the pool hands a run to one browser session).

    Args:
        domain: the domain whose live environment to build.
        config: sandbox limits and places.
        trajectory_id: the stored live trajectory this run continues (default: a new one).
    """

    def __init__(self, domain: str, config: LiveConfig, trajectory_id: str | None = None) -> None:
        reason = unavailable(domain)
        if reason:
            raise LiveEnvironmentError(reason)
        self.domain = domain
        self.env: LiveEnvironment = live_kind(domain).build(config)
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        self.trajectory_id = trajectory_id or f"live/{domain}/{stamp}-{uuid.uuid4().hex[:8]}"
        self.task: str | None = None
        self.initial_state = ""
        self.turns: list[Turn] = []
        self.rewards: list[float | None] = []

    def start(self, task: str | None = None) -> str:
        """(Re)start at `task`'s initial state, forgetting earlier turns; the first observation.

        The task kept is the one the environment reports it started (a web task with its
        instance), so a rewind or a replay starts from the very same state.

        Raises:
            UnknownNameError: no such task.
            LiveEnvironmentError: the environment could not start.
        """
        self.initial_state = self.env.start(task)
        started = self.env.task
        self.task = started.name if started is not None else task
        self.turns, self.rewards = [], []
        return self.initial_state

    def act(self, action: str) -> LiveStep:
        """Run one (canonical) action for real and keep it as the next turn.

        Raises:
            LiveEnvironmentError: the environment died or failed.
        """
        step = self.env.act(action)
        source = live(self.domain, self.trajectory_id)
        self.turns.append(Turn(action=action, observation=step.observation, provenance=source))
        self.rewards.append(step.reward)
        return step

    def screenshot(self) -> bytes | None:
        """The environment's current state as a PNG, where it has a picture (the web page).

        Raises:
            LiveEnvironmentError: the environment died or failed.
        """
        return self.env.screenshot() if isinstance(self.env, Pictured) else None

    def replay(self, actions: Sequence[str]) -> None:
        """Start the task again and take `actions`: the environment is where those leave it.

        How the Playground rewinds a live session, and how a stored live session is continued
        from a fresh environment.
        """
        self.start(self.task)
        for action in actions:
            self.act(action)

    def prompt_context(self) -> PromptContext:
        """The environment's task and tools, for the world model's prompt and action checks."""
        return self.env.prompt_context()

    def trajectory(self) -> Trajectory:
        """The run so far as a trajectory of source `live:<domain>`."""
        context = self.prompt_context()
        metadata: dict[str, object] = {
            "environment_version": self.env.version,
            "live_task": self.task,
            "rewards": list(self.rewards),
        }
        if context.tools:
            metadata["tools"] = context.tools
        return Trajectory(
            id=self.trajectory_id,
            domain=self.domain,
            task=context.task or "",
            initial_state=self.initial_state or None,
            turns=list(self.turns),
            source=live_source(self.domain),
            licence=LIVE_LICENCE,
            notes=f"Recorded live from task {self.task or 'default'}.",
            metadata=metadata,
        )

    def close(self) -> None:
        """Stop the environment (every process, every file)."""
        self.env.close()
