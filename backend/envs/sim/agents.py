"""Agents that act in world-model (and live) episodes: any engine prompted as an agent, or replay.

`EngineAgent` prompts any engine with our agent prompt for the domain (its action format, an
example, the finish action) and the episode so far, and reads the action from the last
`<action>` block. `ReplayAgent` replays a recorded trajectory's actions: a baseline whose real
outcomes are known, and what checks that a world model reproduces a recording.
Both act on a batch of episodes at once (one engine call for the engine agent).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from backend.domains.base import get_domain
from backend.engines.base import Engine
from backend.envs.sim.episode import EpisodeSpec
from backend.errors import BadInputError
from backend.parsing import strip_thinking
from backend.types import ChatMessage, ChatRequest, SamplingParams, Turn

AGENT_SYSTEM = """You are an agent operating a {title} environment to accomplish a task.
Task: {task}

Each turn you see the environment's latest observation and reply with exactly ONE next action.
Action format: {action_help}
Example action:
<action>
{example}
</action>
{finish}
Think briefly if you need to, then write the action inside <action> and </action> tags."""

_ACTION = re.compile(r"<action>\s*(.*?)\s*(?:</action>|$)", re.DOTALL)
_FENCE = re.compile(r"```[a-zA-Z]*\n(.*?)```", re.DOTALL)
MAX_EPISODE_CHARS = 8_000


@dataclass(frozen=True)
class AgentView:
    """What an agent knows when it acts.

    Attributes:
        spec: where the episode started (its task, and the recording for replay agents).
        turns: the episode so far, each turn with the observation the agent saw.
        observation: the latest observation.
    """

    spec: EpisodeSpec
    turns: Sequence[Turn]
    observation: str


@dataclass(frozen=True)
class AgentAction:
    """An agent's action and what it cost."""

    action: str
    tokens: int = 0


class Agent(Protocol):
    """Chooses the next action of many episodes at once."""

    name: str

    def act(self, views: Sequence[AgentView]) -> list[AgentAction]:
        """One action per view, in order."""
        ...


def agent_messages(view: AgentView) -> list[ChatMessage]:
    """Our agent prompt for the view's domain and the episode so far (newest kept)."""
    domain = get_domain(view.spec.domain)
    system = AGENT_SYSTEM.format(
        title=domain.title,
        task=view.spec.task or "(none given: explore and act sensibly)",
        action_help=domain.action_help,
        example=domain.example_action,
        finish=domain.finish.hint if domain.finish is not None else "",
    )
    parts = [f"## Latest observation\n{view.observation or '(empty)'}"]
    used = len(parts[0])
    for index in range(len(view.turns), 0, -1):
        turn = view.turns[index - 1]
        block = f"## Turn {index}\nYour action:\n{turn.action}\nObservation:\n{turn.observation}"
        if used + len(block) > MAX_EPISODE_CHARS:
            break
        parts.append(block)
        used += len(block)
    user = "\n\n".join(reversed(parts)) + "\n\nYour next action:"
    return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=user)]


def read_action(text: str) -> str:
    """The action in an agent's answer: the last `<action>` block, else the last fenced block."""
    answer = strip_thinking(text)[0]
    for pattern in (_ACTION, _FENCE):
        found = pattern.findall(answer)
        if found:
            return str(found[-1]).strip()
    return answer.strip()


class EngineAgent:
    """Any engine as an agent, prompted with `agent_messages`.

    Args:
        engine: the agent's engine (the embedded model by default in `awp rollout`).
        params: its sampling.
    """

    def __init__(self, engine: Engine, params: SamplingParams) -> None:
        self.engine = engine
        self.params = params
        self.name = f"{engine.name}:{engine.model}"

    def act(self, views: Sequence[AgentView]) -> list[AgentAction]:
        """Ask the engine for every view's action in one batched call."""
        requests = [ChatRequest(messages=agent_messages(v), params=self.params) for v in views]
        completions = self.engine.generate(requests)
        return [
            AgentAction(read_action(c.text or c.reasoning), c.prompt_tokens + c.completion_tokens)
            for c in completions
        ]


class ReplayAgent:
    """Replays each episode's recorded actions in order (past the end: the last one again)."""

    name = "replay"

    def act(self, views: Sequence[AgentView]) -> list[AgentAction]:
        """The recorded action at each episode's step.

        Raises:
            BadInputError: an episode has no recording to replay.
        """
        actions = []
        for view in views:
            trajectory = view.spec.trajectory
            if trajectory is None or not trajectory.turns:
                raise BadInputError(
                    "The replay agent needs recorded episodes (--tasks bundled or a file of "
                    "trajectories)."
                )
            index = min(len(view.turns), len(trajectory.turns) - 1)
            actions.append(AgentAction(trajectory.turns[index].action))
        return actions
