"""mcp tasks are checked on the servers' state after every call: solved ends the episode."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from backend.envs.live.base import live_kind
from backend.envs.live.mcp import McpEnvironment
from backend.envs.live.mcp_servers import SERVER_SETS
from tests.support.live import call, live_config, skip_unless_live

pytestmark = skip_unless_live("mcp")

NOTES = "/home/user/files/notes"
TASKS = [task for task in live_kind("mcp").tasks() if task.check is not None]
SOLUTIONS = {task.name: task.solution for task in TASKS if task.solution}
"""The scripted solution of every checked task (the `scripted` agent's): its tool calls."""
NO_OPS = {task.name: task.no_op for task in TASKS if task.no_op}
"""Each task's no-op (`LiveTask.no_op`): a call that reads and changes nothing."""


def _runnable(task: str) -> object:
    missing = "; ".join(filter(None, (s.needs() for s in SERVER_SETS[task].servers)))
    return pytest.param(task, marks=pytest.mark.skipif(bool(missing), reason=missing))


@pytest.fixture(scope="module")
def mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpEnvironment]:
    env = live_kind("mcp").build(live_config(tmp_path_factory.mktemp("mcp")))
    assert isinstance(env, McpEnvironment)
    yield env
    env.close()


def test_every_task_with_a_goal_is_checked_and_has_a_scripted_solution_and_a_no_op() -> None:
    tasks = {task.name: task for task in live_kind("mcp").tasks()}
    checked = {name for name, task in tasks.items() if task.check is not None}
    assert checked == set(SOLUTIONS) == set(NO_OPS) and len(checked) >= 6
    assert all(task.check is not None for task in tasks.values() if task.goal)


@pytest.mark.parametrize("task", [_runnable(task) for task in sorted(SOLUTIONS)])
def test_the_check_passes_on_the_scripted_solution(mcp: McpEnvironment, task: str) -> None:
    mcp.start(task)
    *before, last = [mcp.act(action) for action in SOLUTIONS[task]]
    assert all((step.reward, step.done) == (0.0, False) for step in before)
    assert (last.reward, last.done) == (1.0, True), last.info


@pytest.mark.parametrize("task", [_runnable(task) for task in sorted(NO_OPS)])
def test_the_check_fails_on_a_no_op(mcp: McpEnvironment, task: str) -> None:
    mcp.start(task)
    step = mcp.act(NO_OPS[task])
    assert step.info["error"] is False, step.observation
    assert (step.reward, step.done, step.info["check"]["passed"]) == (0.0, False, False)


def test_a_wrong_answer_fails_the_check(mcp: McpEnvironment) -> None:
    mcp.start("filesystem-write")
    step = mcp.act(call("write_file", path=f"{NOTES}/shopping.txt", content="mug\nblender\n"))
    assert (step.reward, step.done) == (0.0, False)
