"""The live terminal: a real bash in tmux inside the sandbox, driven by terminal-domain actions."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.envs.live.base import LiveStep, live_kind
from backend.envs.live.procs import processes
from backend.envs.live.terminal import TerminalEnvironment
from backend.errors import BadActionError, LiveEnvironmentError, UnknownNameError
from tests.support.live import (
    PROMPT,
    keys,
    leftovers,
    live_config,
    output_then_prompt,
    sandbox_of,
    skip_unless_live,
    until,
)

pytestmark = skip_unless_live("terminal")


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[TerminalEnvironment]:
    env = live_kind("terminal").build(live_config(tmp_path, action_timeout_s=3.0))
    assert isinstance(env, TerminalEnvironment)
    yield env
    env.close()


def until_ended(terminal: TerminalEnvironment, first: str = keys(("", 0.2))) -> LiveStep:
    """Act until the shell's end shows (tmux learns of it a moment after the kernel)."""
    return until(terminal, first, lambda step: step.done)


def test_start_shows_a_prompt(terminal: TerminalEnvironment) -> None:
    screen = terminal.start()
    assert screen == "user@sandbox:~$"


def test_echo_shows_command_and_output(terminal: TerminalEnvironment) -> None:
    terminal.start()
    step = until(terminal, keys(("echo hello\n", 0.3)), output_then_prompt("hello\n"))
    assert step.observation.splitlines() == [
        "user@sandbox:~$ echo hello",
        "hello",
        "user@sandbox:~$",
    ]
    assert not step.done
    assert terminal.observe() == step.observation


def test_ctrl_c_interrupts_a_long_command(terminal: TerminalEnvironment) -> None:
    terminal.start()
    running = until(terminal, keys(("sleep 100\n", 0.3)), lambda s: "sleep 100" in s.observation)
    assert running.observation.splitlines()[-1] == f"{PROMPT} sleep 100"  # no prompt yet
    stopped = until(terminal, keys(("C-c", 0.3)), output_then_prompt("^C\n"))
    assert stopped.observation.splitlines()[-2:] == ["^C", "user@sandbox:~$"]


def test_keys_without_newline_are_typed_but_not_run(terminal: TerminalEnvironment) -> None:
    terminal.start()
    typed = until(terminal, keys(("echo later", 0.2)), lambda s: "later" in s.observation)
    assert typed.observation == f"{PROMPT} echo later"
    ran = until(terminal, keys(("Enter", 0.3)), lambda s: len(s.observation.splitlines()) > 2)
    assert ran.observation.splitlines()[-2:] == ["later", "user@sandbox:~$"]


def test_state_persists_between_actions(terminal: TerminalEnvironment) -> None:
    terminal.start()
    until(
        terminal,
        keys(("mkdir work && cd work && export GREETING=hi\n", 0.3)),
        output_then_prompt("work$"),
    )
    step = until(terminal, keys(("echo $GREETING; pwd\n", 0.3)), output_then_prompt("/work\n"))
    assert step.observation.splitlines()[-3:] == ["hi", "/home/user/work", "user@sandbox:~/work$"]


def test_durations_are_capped_by_the_action_timeout(terminal: TerminalEnvironment) -> None:
    terminal.start()
    step = terminal.act(keys(("", 30.0)))
    assert step.info["waited_s"] == 3.0


def test_empty_action_confirms_completion(terminal: TerminalEnvironment) -> None:
    screen = terminal.start()
    step = terminal.act("[]")
    assert step.done
    assert step.observation == screen


def test_ansi_colours_are_kept_when_asked(tmp_path: Path) -> None:
    env = TerminalEnvironment(live_config(tmp_path), ansi=True)
    try:
        env.start()
        step = until(
            env,
            keys(("printf '\\033[31mred\\033[0m\\n'\n", 0.4)),
            output_then_prompt("\x1b[31mred\n"),
        )
        assert "\x1b[31mred" in step.observation
    finally:
        env.close()


def test_exit_ends_the_episode_and_says_why(terminal: TerminalEnvironment) -> None:
    terminal.start()
    step = until_ended(terminal, keys(("exit 3\n", 0.3)))
    assert step.info["ended"] == "the shell exited with status 3"
    with pytest.raises(LiveEnvironmentError, match="exited with status 3"):
        terminal.observe()
    with pytest.raises(LiveEnvironmentError, match="Start it again"):
        terminal.act(keys(("echo hi\n", 0.1)))


def test_killed_shell_names_the_signal(terminal: TerminalEnvironment) -> None:
    terminal.start()
    uid, _ = sandbox_of(terminal)
    shell = next(p for p in processes(uid) if p.namespace_init)  # bash is the namespace's init
    os.kill(shell.pid, signal.SIGKILL)  # as a limit would
    step = until_ended(terminal)
    assert step.info["ended"].startswith("the shell was killed by SIGKILL")


def test_project_task_has_a_git_repository(terminal: TerminalEnvironment) -> None:
    terminal.start("project")
    step = until(
        terminal,
        keys(("cd project && git log --oneline | wc -l && ls\n", 0.5)),
        output_then_prompt("wordfreq\n"),
    )
    assert "README.md  pyproject.toml  tests  wordfreq" in step.observation
    assert terminal.prompt_context().task


def test_start_again_gives_a_fresh_shell(terminal: TerminalEnvironment) -> None:
    terminal.start()
    until(terminal, keys(("touch leftover\n", 0.3)), output_then_prompt("leftover\n"))
    terminal.start()
    step = until(terminal, keys(("ls -A | wc -l\n", 0.3)), output_then_prompt("wc -l\n"))
    assert step.observation.splitlines()[-2] == "0"


def test_close_leaves_nothing(terminal: TerminalEnvironment) -> None:
    terminal.start()
    until(terminal, keys(("sleep 300 & sleep 300 &\n", 0.3)), output_then_prompt("[2]"))
    uid, folder = sandbox_of(terminal)
    terminal.close()
    assert leftovers(uid, folder) == []
    terminal.close()  # twice is fine


def test_bad_action_and_task_are_refused(terminal: TerminalEnvironment) -> None:
    with pytest.raises(UnknownNameError, match="shell"):
        terminal.start("nope")
    terminal.start()
    with pytest.raises(BadActionError):
        terminal.act('{"keystrokes": "ls"}')


def test_version_names_the_programs(terminal: TerminalEnvironment) -> None:
    parts = terminal.version.split("; ")
    assert [part.split()[0] for part in parts] == ["bash", "tmux", "bubblewrap"]
