"""The scripted reference agents solve the share of tasks they name; shared plot points."""

from __future__ import annotations

import pytest

from backend.envs.live.base import live_kind
from backend.envs.sim.baseline_agents import ScriptedAgent, scripted_share, solved_tasks
from backend.envs.sim.plot_labels import shared_points
from backend.errors import BadInputError


@pytest.mark.parametrize("domain", ["terminal", "swe", "mcp"])
def test_every_checked_task_has_a_solution_and_shares_are_nested(domain: str) -> None:
    tasks = [task for task in live_kind(domain).tasks() if task.check is not None]
    assert tasks and all(task.solution for task in tasks)
    counts = [len(solved_tasks(domain, share)) for share in (0, 0.33, 0.67, 1)]
    assert counts[0] == 0 and counts[-1] == len(tasks) and counts == sorted(set(counts))
    assert solved_tasks(domain, 0.33) <= solved_tasks(domain, 0.67) <= solved_tasks(domain, 1)


def test_share_names_and_bad_shares() -> None:
    assert ScriptedAgent().name == "scripted" and ScriptedAgent(0.5).name == "scripted:0.5"
    assert scripted_share("0.25") == 0.25
    for bad in ("half", "1.5", "-0.1"):
        with pytest.raises(BadInputError, match="from 0 to 1"):
            scripted_share(bad)


def test_names_at_one_point_share_one_label() -> None:
    points = shared_points([(0.0, 0.0, "a"), (0.0, 0.0, "b"), (1.0, 0.5, "c")])
    assert points == [(0.0, 0.0, "a\nb"), (1.0, 0.5, "c")]
