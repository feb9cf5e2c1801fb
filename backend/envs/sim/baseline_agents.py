"""Reference agents for the policy leaderboard: random valid actions, and scripted solvers.

A simulator whose rankings hold in reality ranks these the same way a live environment does:
the scripted solver (each live task's own `LiveTask.solution`) beats one that solves a share of
the tasks, which beats random actions and the no-op, in both. `random` draws from valid
actions of the domain (the bundled recordings' actions and the domain's example), seeded, so a
run repeats.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence
from functools import cache

from backend.data.bundled import load_bundled
from backend.domains.base import get_domain
from backend.envs.live.base import LIVE, LiveTask
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
    """Plays the scripted solution of a share of each domain's live tasks; a no-op elsewhere.

    `scripted` solves every task. `scripted:S` (0 <= S <= 1) solves the first round(S * n) of
    the domain's n tasks with a solution, in a fixed order (by a hash of the name, so the
    share is not the alphabet's start), and plays the task's no-op (`LiveTask.no_op`, else
    the domain's example action: a read, a listing, valid and changing nothing the checks
    look at) on the others; `scripted:0` is a no-op policy. Reference policies of known live
    success, so that a leaderboard's live ranks are defined.

    Args:
        share: the share of tasks solved.
    """

    def __init__(self, share: float = 1.0) -> None:
        self.share = share
        self.name = SCRIPTED if share == 1 else f"{SCRIPTED}:{share:g}"

    def act(self, views: Sequence[AgentView]) -> list[AgentAction]:
        """The solution's action at each episode's step, or the no-op on an unsolved task.

        Raises:
            BadInputError: an episode's live task has no scripted solution.
        """
        actions = []
        for view in views:
            domain, name = view.spec.domain, view.spec.live_task
            task = _solved(domain, name)
            if name in solved_tasks(domain, self.share):
                step = min(len(view.turns), len(task.solution) - 1)
                actions.append(AgentAction(task.solution[step]))
            else:
                actions.append(AgentAction(no_op(domain, task)))
        return actions


def solved_tasks(domain: str, share: float) -> frozenset[str]:
    """The live tasks of `domain` that `scripted:share` solves (see `ScriptedAgent`)."""
    names = sorted(
        (t.name for t in LIVE.get(domain).tasks() if t.solution),
        key=lambda name: zlib.crc32(name.encode()),
    )
    return frozenset(names[: round(share * len(names))])


def scripted_share(text: str) -> float:
    """The S of `scripted:S`, a number from 0 to 1.

    Raises:
        BadInputError: not a number in that range.
    """
    try:
        share = float(text)
    except ValueError:
        share = -1.0
    if not 0 <= share <= 1:
        raise BadInputError(f"scripted's share of tasks solved must be from 0 to 1, not {text!r}.")
    return share


def no_op(domain: str, task: LiveTask | None) -> str:
    """The task's no-op action (`LiveTask.no_op`), else the domain's example action."""
    return (task.no_op if task is not None else "") or get_domain(domain).example_action


def _solved(domain: str, name: str | None) -> LiveTask:
    task = LIVE.get(domain).task_named(name) if domain in LIVE else None
    if task is not None and task.solution:
        return task
    raise BadInputError(
        f"The scripted agent needs a live task with a scripted solution; {domain} task "
        f"{name or '(none)'} has none (see `awp live tasks`)."
    )
