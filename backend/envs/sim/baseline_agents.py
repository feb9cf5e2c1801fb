"""Reference agents for the policy leaderboard: random valid actions, and a scripted solver.

A simulator whose rankings hold in reality ranks these the same way a live environment does:
the scripted solver (each live task's own `LiveTask.solution`) should beat random actions in
both. `random` draws from valid actions of the domain (the bundled recordings' actions and the
domain's example), seeded, so a run repeats.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

from backend.data.bundled import load_bundled
from backend.domains.base import get_domain
from backend.envs.live.base import LIVE
from backend.envs.sim.agents import AgentAction, AgentView
from backend.errors import BadInputError

RANDOM = "random"
SCRIPTED = "scripted"


@cache
def valid_actions(domain: str) -> tuple[str, ...]:
    """The actions `random` draws from: the domain's example and its recordings' actions."""
    actions = {get_domain(domain).example_action}
    actions.update(t.action for r in load_bundled() if r.domain == domain for t in r.turns)
    return tuple(sorted(actions))


class RandomAgent:
    """Random valid actions of the episode's domain.

    Args:
        seed: the draw's seed (`random:SEED`).
    """

    def __init__(self, seed: int = 0) -> None:
        self.name = f"{RANDOM}:{seed}"
        self._rng = random.Random(seed)

    def act(self, views: Sequence[AgentView]) -> list[AgentAction]:
        """One random valid action per episode."""
        return [AgentAction(self._rng.choice(valid_actions(v.spec.domain))) for v in views]


class ScriptedAgent:
    """Plays each episode's live task's scripted solution (past its end: the last action)."""

    name = SCRIPTED

    def act(self, views: Sequence[AgentView]) -> list[AgentAction]:
        """The solution's action at each episode's step.

        Raises:
            BadInputError: an episode's live task has no scripted solution.
        """
        actions = []
        for view in views:
            solution = _solution(view.spec.domain, view.spec.live_task)
            actions.append(AgentAction(solution[min(len(view.turns), len(solution) - 1)]))
        return actions


def _solution(domain: str, task: str | None) -> tuple[str, ...]:
    if task and domain in LIVE:
        for known in LIVE.get(domain).tasks():
            if known.name == task and known.solution:
                return known.solution
    raise BadInputError(
        f"The scripted agent needs a live task with a scripted solution; {domain} task "
        f"{task or '(none)'} has none (see `awp live tasks`)."
    )
