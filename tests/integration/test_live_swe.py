"""The live swe environment: shipped task repositories, SWE-agent tools, tests as the reward."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.domains.swe import validate
from backend.envs.live.base import live_kind
from backend.envs.live.swe import SweEnvironment
from backend.errors import BadActionError, UnknownNameError
from tests.support.live import call, leftovers, live_config, sandbox_of, skip_unless_live

pytestmark = skip_unless_live("swe")

COUNTER = "/testbed/wordfreq/counter.py"
FIX = {"old_str": "_WORD.findall(text)", "new_str": "_WORD.findall(text.lower())"}


@pytest.fixture
def swe(tmp_path: Path) -> Iterator[SweEnvironment]:
    env = live_kind("swe").build(live_config(tmp_path, action_timeout_s=30.0))
    assert isinstance(env, SweEnvironment)
    env.start("wordfreq")
    yield env
    env.close()


def test_every_shipped_task_has_a_failing_test(tmp_path: Path) -> None:
    env = SweEnvironment(live_config(tmp_path, action_timeout_s=60.0))
    try:
        for task in live_kind("swe").tasks():
            listing = env.start(task.name)
            assert listing.startswith("Here's the files and directories up to 2 levels deep")
            step = env.act(call("bash", command="python -m pytest -q"))
            assert step.info["exit_code"] == 1, step.observation
            assert " failed" in step.observation
            assert task.goal
    finally:
        env.close()


def test_edit_then_tests_pass(swe: SweEnvironment) -> None:
    edited = swe.act(call("str_replace_editor", command="str_replace", path=COUNTER, **FIX))
    assert edited.observation.startswith(
        f"The file {COUNTER} has been edited. Here's the result of running `cat -n` on a "
        f"snippet of {COUNTER}:\n"
    )
    assert "    11\t    return _WORD.findall(text.lower())" in edited.observation
    assert edited.observation.endswith(
        "Review the changes and make sure they are as expected. Edit the file again if necessary."
    )
    tests = swe.act(call("bash", command="python -m pytest -q"))
    assert tests.info["exit_code"] == 0
    assert "3 passed" in tests.observation


def test_view_create_insert_and_undo(swe: SweEnvironment) -> None:
    view = swe.act(call("str_replace_editor", command="view", path=COUNTER, view_range=[9, 11]))
    assert view.observation.splitlines() == [
        f"Here's the result of running `cat -n` on {COUNTER}:",
        "     9\tdef words(text: str) -> list[str]:",
        '    10\t    """Return the words of `text` in order, in lower case."""',
        "    11\t    return _WORD.findall(text)",
    ]
    made = swe.act(
        call("str_replace_editor", command="create", path="/testbed/a.txt", file_text="x")
    )
    assert made.observation == "File created successfully at: /testbed/a.txt"
    again = swe.act(
        call("str_replace_editor", command="create", path="/testbed/a.txt", file_text="y")
    )
    assert again.observation == (
        "File already exists at: /testbed/a.txt. Cannot overwrite files using command `create`."
    )
    inserted = swe.act(
        call("str_replace_editor", command="insert", path=COUNTER, insert_line=0, new_str="# top")
    )
    assert "     1\t# top" in inserted.observation
    undone = swe.act(call("str_replace_editor", command="undo_edit", path=COUNTER))
    assert undone.observation.startswith(f"Last edit to {COUNTER} undone successfully.")
    assert "# top" not in swe.act(call("bash", command=f"head -1 {COUNTER}")).observation
    nothing = swe.act(call("str_replace_editor", command="undo_edit", path=COUNTER))
    assert nothing.observation == f"No edit history found for {COUNTER}."


def test_refused_edits_explain_themselves(swe: SweEnvironment) -> None:
    absent = swe.act(
        call("str_replace_editor", command="str_replace", path=COUNTER, old_str="nowhere")
    )
    assert absent.observation == (
        f"No replacement was performed, old_str `nowhere` did not appear verbatim in {COUNTER}."
    )
    twice = swe.act(call("str_replace_editor", command="str_replace", path=COUNTER, old_str="text"))
    assert twice.observation.startswith("No replacement was performed. Multiple occurrences")
    relative = swe.act(call("str_replace_editor", command="view", path="wordfreq"))
    assert relative.observation == (
        "The path wordfreq is not an absolute path, it should start with `/`. "
        "Maybe you meant /testbed/wordfreq?"
    )
    missing = swe.act(call("str_replace_editor", command="view", path="/testbed/nope.py"))
    assert (
        missing.observation
        == "The path /testbed/nope.py does not exist. Please provide a valid path."
    )


def test_same_size_edit_is_seen_at_once(swe: SweEnvironment) -> None:
    """No stale bytecode: a same-length edit within one second changes the next run."""
    script = "/testbed/v.py"
    swe.act(call("str_replace_editor", command="create", path=script, file_text="print(1)\n"))
    swe.act(call("bash", command="python -c 'import v'"))
    swe.act(
        call("str_replace_editor", command="str_replace", path=script, old_str="1", new_str="2")
    )
    assert swe.act(call("bash", command="python -c 'import v'")).observation == "2"


def test_a_command_past_the_time_limit_gets_124(tmp_path: Path) -> None:
    env = SweEnvironment(live_config(tmp_path, action_timeout_s=1.0))
    try:
        env.start()
        step = env.act(call("bash", command="echo started; sleep 30"))
        assert step.info["exit_code"] == 124
        assert step.observation == (
            "started\nThe command 'echo started; sleep 30' was cancelled because it took more "
            "than 1 seconds."
        )
    finally:
        env.close()


def test_submit_shows_the_diff_and_runs_the_hidden_tests(swe: SweEnvironment) -> None:
    cheat = "/testbed/tests/test_counter.py"
    swe.act(call("bash", command=f"printf 'def test_ok():\\n    pass\\n' > {cheat}"))
    unfixed = swe.act(call("submit"))
    assert unfixed.done and unfixed.reward == 0.0  # rewriting the tests does not help
    swe.act(call("str_replace_editor", command="str_replace", path=COUNTER, **FIX))
    fixed = swe.act(call("submit"))
    assert fixed.done and fixed.reward == 1.0
    assert "+    return _WORD.findall(text.lower())" in fixed.observation
    assert fixed.observation.startswith("diff --git a/tests/test_counter.py ")
    assert "diff --git a/wordfreq/counter.py b/wordfreq/counter.py" in fixed.observation


def test_tool_definitions_validate_actions(swe: SweEnvironment) -> None:
    ctx = swe.prompt_context()
    assert ctx.tools and "top_words()" in (ctx.task or "")
    assert (
        validate(call("bash", command="ls"), ctx)
        == '{"name": "bash", "arguments": {"command": "ls"}}'
    )
    with pytest.raises(BadActionError, match="Unknown tool"):
        swe.act(call("python", code="1"))


def test_close_leaves_nothing(swe: SweEnvironment) -> None:
    uid, folder = sandbox_of(swe)
    swe.close()
    assert leftovers(uid, folder) == []


def test_unknown_task_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UnknownNameError, match="wordfreq"):
        SweEnvironment(live_config(tmp_path)).start("nope")
