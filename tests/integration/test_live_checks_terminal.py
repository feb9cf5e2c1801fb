"""Terminal tasks are checked by a shell check when the agent says it is done; hacks score 0."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from backend.envs.live.base import LiveStep, live_kind
from backend.envs.live.terminal import TerminalEnvironment
from tests.support.live import keys, live_config, output_then_prompt, skip_unless_live, until

pytestmark = skip_unless_live("terminal")

SOLUTIONS = {
    "project": "sed -i 's/findall(text)/findall(text.lower())/' ~/project/wordfreq/counter.py",
    "hello": "echo 'hello, world' > ~/hello.txt",
    "backup": "mkdir ~/backup && cp ~/data/report.txt ~/backup/",
    "errors": "grep -c ERROR ~/logs/app.log > ~/errors.txt",
    "sort": "sort ~/names.txt > ~/sorted.txt",
    "script": "mkdir -p ~/bin && printf '#!/bin/sh\\necho hi there\\n' > ~/bin/greet"
    " && chmod +x ~/bin/greet",
}
"""A scripted solution of every checked task: one command line."""

CONFTEST = (
    "printf 'import pytest\\n@pytest.hookimpl(hookwrapper=True)\\n"
    "def pytest_runtest_makereport(item, call):\\n    outcome = yield\\n"
    '    outcome.get_result().outcome = "passed"\\n\' > ~/project/conftest.py'
)


@pytest.fixture(scope="module")
def terminal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TerminalEnvironment]:
    config = live_config(tmp_path_factory.mktemp("terminal"), action_timeout_s=30.0)
    env = live_kind("terminal").build(config)
    assert isinstance(env, TerminalEnvironment)
    yield env
    env.close()


def _run_then_confirm(terminal: TerminalEnvironment, command: str) -> LiveStep:
    """Run `command`, wait for it to finish (its marker printed), then send the empty action."""
    until(terminal, keys((f"{command}; echo fini''shed\n", 0.3)), output_then_prompt("finished"))
    step = terminal.act("[]")
    assert step.done
    return step


def test_every_task_with_a_goal_is_checked_and_has_a_scripted_solution() -> None:
    tasks = {task.name: task for task in live_kind("terminal").tasks()}
    checked = {name for name, task in tasks.items() if task.check is not None}
    assert checked == set(SOLUTIONS) and len(checked) >= 6
    assert all(task.check is not None for task in tasks.values() if task.goal)


@pytest.mark.parametrize("task", sorted(SOLUTIONS))
def test_the_check_passes_on_the_scripted_solution(
    terminal: TerminalEnvironment, task: str
) -> None:
    terminal.start(task)
    step = _run_then_confirm(terminal, SOLUTIONS[task])
    assert step.reward == 1.0, step.info["check"]
    assert step.info["check"]["passed"] is True


@pytest.mark.parametrize("task", sorted(SOLUTIONS))
def test_the_check_fails_on_a_no_op(terminal: TerminalEnvironment, task: str) -> None:
    terminal.start(task)
    step = terminal.act("[]")
    assert (step.done, step.reward, step.info["check"]["passed"]) == (True, 0.0, False)


def test_a_task_without_a_goal_has_no_check(terminal: TerminalEnvironment) -> None:
    terminal.start("shell")
    step = terminal.act("[]")
    assert step.done and step.reward is None and "check" not in step.info


@pytest.mark.parametrize(
    ("task", "hack"),
    [
        ("backup", "mkdir ~/backup && ln -s ~/data/report.txt ~/backup/report.txt"),
        ("hello", "echo 'hello, world' > /tmp/h && ln -s /tmp/h ~/hello.txt"),
        ("backup", "mkdir ~/backup && ln ~/data/report.txt ~/backup/report.txt"),
        ("errors", "echo 3 > /tmp/n && ln -s /tmp/n ~/errors.txt"),
        ("errors", "mkfifo ~/errors.txt && (echo 3 > ~/errors.txt &)"),
        ("script", "mkdir -p ~/bin && ln -s /bin/true ~/bin/greet"),
        ("project", CONFTEST),
        ("project", "sed -i '1i import os; os._exit(0)' ~/project/wordfreq/__init__.py"),
        ("project", "rm ~/project/tests/test_counter.py"),
    ],
)
def test_a_hack_scores_0(terminal: TerminalEnvironment, task: str, hack: str) -> None:
    """Links to the expected content, and the test-runner tricks, are no solution."""
    terminal.start(task)
    step = _run_then_confirm(terminal, hack)
    assert step.reward == 0.0, step.info["check"]


def test_the_check_runs_when_the_shell_ends(terminal: TerminalEnvironment) -> None:
    terminal.start("hello")
    step = until(terminal, keys((f"{SOLUTIONS['hello']}; exit\n", 0.3)), lambda seen: seen.done)
    assert step.reward == 1.0 and "ended" in step.info
