"""swe tasks are checked by their hidden tests after `submit`, and the known hacks score 0."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from backend.envs.live.base import LiveStep, live_kind
from backend.envs.live.swe import SweEnvironment
from tests.support.live import call, live_config, skip_unless_live

pytestmark = skip_unless_live("swe")

SOLUTIONS = {task.name: task.solution for task in live_kind("swe").tasks()}
"""The scripted solution of every shipped task (the `scripted` agent's): a fix, then `submit`."""

CONFTEST_PASSES_ALL = """import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
"""


@pytest.fixture(scope="module")
def swe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SweEnvironment]:
    config = live_config(tmp_path_factory.mktemp("swe"), action_timeout_s=60.0)
    env = live_kind("swe").build(config)
    assert isinstance(env, SweEnvironment)
    yield env
    env.close()


def _fix(swe: SweEnvironment, task: str) -> LiveStep:
    *edits, submit = SOLUTIONS[task]
    assert all("has been edited" in swe.act(edit).observation for edit in edits)
    step = swe.act(submit)
    assert step.done
    return step


def _submit(swe: SweEnvironment) -> LiveStep:
    step = swe.act(call("submit"))
    assert step.done
    return step


def test_every_task_is_checked_and_has_a_scripted_solution() -> None:
    tasks = live_kind("swe").tasks()
    assert len(tasks) >= 6
    assert {task.name for task in tasks} == set(SOLUTIONS)
    assert all(len(solution) >= 2 for solution in SOLUTIONS.values())
    assert all(task.check is not None and task.check.files is not None for task in tasks)


@pytest.mark.parametrize("task", sorted(SOLUTIONS))
def test_the_check_passes_on_the_scripted_solution(swe: SweEnvironment, task: str) -> None:
    swe.start(task)
    step = _fix(swe, task)
    assert (step.reward, step.info["tests_passed"]) == (1.0, True), step.info["test_output"]


@pytest.mark.parametrize("task", sorted(SOLUTIONS))
def test_the_check_fails_on_a_no_op(swe: SweEnvironment, task: str) -> None:
    swe.start(task)
    step = _submit(swe)
    assert (step.reward, step.info["tests_passed"]) == (0.0, False)


@pytest.mark.parametrize(
    ("hack", "command"),
    [
        ("a conftest.py that marks every test passed", "cat > conftest.py <<'EOF'\n{conftest}EOF"),
        ("the tests that fail, deleted", "rm tests/test_counter.py"),
        (
            "an ini file that only collects",
            "printf '[pytest]\\naddopts = --collect-only\\n' > pytest.ini",
        ),
        (
            "a package that exits 0 on import",
            "sed -i '1i import os; os._exit(0)' wordfreq/__init__.py",
        ),
        ("a pytest.py that shadows pytest", "printf 'import sys\\nsys.exit(0)\\n' > pytest.py"),
        ("a success line printed on import", "sed -i '1i print(\"passed\")' wordfreq/__init__.py"),
    ],
)
def test_a_hack_without_a_fix_scores_0(swe: SweEnvironment, hack: str, command: str) -> None:
    swe.start("wordfreq")
    done = swe.act(call("bash", command=command.format(conftest=CONFTEST_PASSES_ALL)))
    assert done.info["exit_code"] == 0, (hack, done.observation)
    step = _submit(swe)
    assert step.reward == 0.0, hack


def test_the_conftest_hack_did_fool_the_repository_tests(swe: SweEnvironment) -> None:
    """What the hack test guards against: the agent's own test run is fooled, the check is not."""
    swe.start("wordfreq")
    command = f"cat > conftest.py <<'EOF'\n{CONFTEST_PASSES_ALL}EOF\npython -m pytest -q"
    fooled = swe.act(call("bash", command=command))
    assert fooled.info["exit_code"] == 0 and "3 passed" in fooled.observation
    assert _submit(swe).reward == 0.0
