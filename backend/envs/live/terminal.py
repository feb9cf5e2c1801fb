"""Live terminal environment: a real bash in a tmux pane, inside the sandbox.

The tmux server itself runs as the sandbox uid (started by this process with `tmux -D`, so this
process reaps it) inside the sandbox's cgroup, and its one pane runs `prlimit -> bwrap -> bash`.
Where cgroups hold, the whole sandbox (tmux included) is frozen between actions: a job left in
the background runs only while an action runs, within the sandbox's CPU quota, and the screen
cannot change in between, so `observe` then returns the one the last action left. Keystrokes go
in with `send-keys` exactly as the terminal domain writes them (tmux key names such as `C-c`,
anything else typed literally, a newline pressing Enter), each followed by its `duration`; the
observation is the visible screen from `capture-pane`, the way Terminal-Bench records it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from backend.domains.base import PromptContext
from backend.domains.terminal import validate
from backend.envs.live.base import LIVE, LiveConfig, LiveKind, LiveStep, LiveTask
from backend.envs.live.checks import run_check
from backend.envs.live.host import HOST_PATH, missing_sandbox, require, version
from backend.envs.live.procs import stop_trees
from backend.envs.live.sandbox import Sandbox
from backend.envs.live.terminal_tasks import SHELL_TASKS, ShellTask
from backend.errors import LiveEnvironmentError, UnknownNameError

if TYPE_CHECKING:
    from libtmux import Server

WIDTH, HEIGHT = 160, 40
# tmux's own terminal type where the host has its terminfo (ncurses-base), else the classic one.
_TERMINFO = ("/usr/share/terminfo", "/lib/terminfo")
TERM = next(
    (n for n in ("tmux-256color", "screen") if any(Path(b, n[0], n).exists() for b in _TERMINFO)),
    "screen",
)
START_TIMEOUT_S = 10.0
STATUS_WAIT_S = 5.0
_DEAD_LINE = "Pane is dead ("
_TMUX_CONF = f"""set -g status off
set -g history-limit 2000
set -g remain-on-exit on
set -g default-terminal {TERM}
set -sg escape-time 0
"""


def _reason(status: str, signum: str) -> str:
    """Say why the shell's pane died, from tmux's pane_dead_status / pane_dead_signal.

    The pane's process is bwrap, which exits with 128 + N when the shell dies of signal N.
    """
    if not signum and status.isdigit() and 128 < int(status) < 128 + signal.NSIG:
        signum = str(int(status) - 128)
    if signum:
        number = int(signum)
        name = signal.Signals(number).name if number in signal.valid_signals() else str(number)
        cause = {
            "SIGKILL": " (a sandbox limit, such as the process, memory or CPU-time budget of "
            "the sandbox, or a kill)",
            "SIGXCPU": " (the CPU-time limit)",
            "SIGXFSZ": " (the file-size limit)",
        }.get(name, "")
        return f"the shell was killed by {name}{cause}"
    return f"the shell exited with status {status}"


class TerminalEnvironment:
    """A bash shell in tmux inside a sandbox.

    Args:
        config: limits and the work folder.
        ansi: keep colour escape sequences in observations (the terminal renderer shows them).
    """

    domain = "terminal"

    def __init__(self, config: LiveConfig, ansi: bool = False) -> None:
        self.config = config
        self.ansi = ansi
        self._sandbox: Sandbox | None = None
        self._server: subprocess.Popen[bytes] | None = None
        self._tmux: Server | None = None
        self._pane = ""
        self._task: ShellTask = SHELL_TASKS["shell"]
        self._ended = ""
        self._last = ""

    @property
    def version(self) -> str:
        """Programs behind the screen and their versions."""
        return "; ".join(
            (version("bash"), version("tmux", flag="-V"), version("bwrap", "bubblewrap"))
        )

    @property
    def task(self) -> LiveTask:
        """The task the shell started from."""
        return self._task.task

    def start(self, task: str | None = None) -> str:
        """Start a fresh shell at a task's start (default `shell`); returns the first screen."""
        name = task or "shell"
        if name not in SHELL_TASKS:
            valid = ", ".join(SHELL_TASKS)
            raise UnknownNameError(f"Unknown terminal task {name!r}. Valid: {valid}.")
        self.close()
        self._task, self._ended = SHELL_TASKS[name], ""
        sandbox = self._sandbox = Sandbox(self.config).open()
        try:
            self._task.prepare(sandbox, self.config.action_timeout_s)
            self._start_tmux(sandbox)
            self._last = self._wait_for_prompt()
            sandbox.pause()
            return self._last
        except BaseException:
            self.close()
            raise

    def _start_tmux(self, sandbox: Sandbox) -> None:
        assert sandbox.folder is not None
        socket = sandbox.private_dir("tmux") / "socket"
        conf = sandbox.folder / "tmux.conf"
        conf.write_text(_TMUX_CONF)
        tmux = require("tmux")
        server = [tmux, "-D", "-S", str(socket), "-f", str(conf)]
        self._server = subprocess.Popen(
            [*sandbox.enter(), *sandbox.limits(cpu=False), *sandbox.drop(), *server],
            env={"PATH": HOST_PATH},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._wait(lambda: socket.exists(), "the tmux server did not start")
        shell = [*sandbox.limits(), *sandbox.bwrap(["bash"], tty=True, env={"TERM": TERM})]
        session = [tmux, "-S", str(socket), "new-session", "-d", "-P", "-F", "#{pane_id}"]
        session += ["-x", str(WIDTH), "-y", str(HEIGHT), "--", *shell]
        # Started here rather than through libtmux: a tmux client hands its environment to a
        # new session, and the host's must not reach even the tmux server.
        made = subprocess.run(session, capture_output=True, text=True, env={"PATH": HOST_PATH})
        if made.returncode != 0:
            raise LiveEnvironmentError(f"tmux could not open the shell: {made.stderr.strip()}")
        self._pane = made.stdout.strip()
        from libtmux import Server

        self._tmux = Server(socket_path=socket, tmux_bin=tmux)

    def _wait(self, ready: Callable[[], bool], failure: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not ready():
            if self._server is not None and self._server.poll() is not None:
                raise LiveEnvironmentError(f"{failure} (it exited with {self._server.returncode}).")
            if time.monotonic() > deadline:
                raise LiveEnvironmentError(f"{failure} within {START_TIMEOUT_S:g} s.")
            time.sleep(0.01)

    def _wait_for_prompt(self) -> str:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            dead = self._dead()
            if dead:
                raise LiveEnvironmentError(f"The terminal did not start: {dead}.")
            screen = self._screen()
            if screen.strip():
                return screen
            if time.monotonic() > deadline:
                raise LiveEnvironmentError("The shell showed no prompt within 10 s.")
            time.sleep(0.01)

    # -- observing -------------------------------------------------------------------------------

    def _cmd(self, *args: str) -> list[str]:
        if self._tmux is None:
            raise LiveEnvironmentError("The terminal is not started: start it first.")
        done = self._tmux.cmd(*args)
        if done.returncode != 0:
            raise LiveEnvironmentError(
                "The terminal's tmux server stopped"
                + (f": {' '.join(done.stderr)}" if done.stderr else ".")
            )
        return list(done.stdout)

    def _dead(self) -> str:
        """Why the shell is gone ("" while it runs).

        tmux sees the pane's terminal close before it learns the exit status, and tmux 3.3a
        now and then misses the SIGCHLD of the pane's process (about one exit in ten here, the
        process then stays a zombie); a SIGCHLD sent to the server makes it reap and record
        the status, so the reason is never a guess.
        """
        fields = "#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}"
        deadline = time.monotonic() + STATUS_WAIT_S
        while True:
            line = self._cmd("display-message", "-p", "-t", self._pane, fields)
            dead, status, signum = (line[0] if line else "1||").split("|")
            if dead != "1":
                return ""
            if status or signum:
                return _reason(status, signum)
            if time.monotonic() > deadline:
                return "the shell ended (tmux did not report how)"
            if self._server is not None:
                os.kill(self._server.pid, signal.SIGCHLD)
            time.sleep(0.02)

    def _screen(self) -> str:
        lines = self._cmd("capture-pane", "-p", "-t", self._pane, *(["-e"] if self.ansi else []))
        while lines and (not lines[-1].strip() or lines[-1].startswith(_DEAD_LINE)):
            lines.pop()
        return "\n".join(lines)

    def observe(self) -> str:
        """The visible screen.

        Raises:
            LiveEnvironmentError: the shell has ended (says why).
        """
        if self._ended:
            raise LiveEnvironmentError(f"The terminal has ended: {self._ended}. Start it again.")
        if self._sandbox is not None and self._sandbox.paused:
            return self._last
        return self._screen()

    # -- acting ----------------------------------------------------------------------------------

    def act(self, action: str) -> LiveStep:
        """Send each keystroke batch, wait its duration (capped), return the screen.

        An empty list confirms completion (`done`). If the shell ends during the action, the
        step carries the last screen with `done` and the reason in `info["ended"]`. At the end
        of a task with a check, the check runs: its outcome is the reward (1 or 0) and
        `info["check"]`.

        Raises:
            BadActionError: not a terminal action.
            LiveEnvironmentError: the shell had already ended, or tmux failed.
        """
        commands = json.loads(validate(action, PromptContext()))
        self.observe()  # refuses a shell that has ended, or one never started
        sandbox = self._sandbox
        if sandbox is None:
            raise LiveEnvironmentError("The terminal is not started: start it first.")
        sandbox.resume()
        try:
            return self._act(commands)
        finally:
            sandbox.pause()

    def _act(self, commands: list[dict[str, Any]]) -> LiveStep:
        budget = self.config.action_timeout_s
        waited = 0.0
        for command in commands:
            if command["keystrokes"]:
                self._cmd("send-keys", "-t", self._pane, "--", command["keystrokes"])
            pause = min(command["duration"], budget - waited)
            time.sleep(max(pause, 0.0))
            waited += max(pause, 0.0)
            if self._dead():
                break
        if self._sandbox is not None and self._sandbox.spent():
            self._stop_shell()
        screen = self._last = self._screen()
        self._ended = self._dead()
        info: dict[str, object] = {"waited_s": round(waited, 3)}
        if self._ended:
            info["ended"] = self._ended
        done = bool(self._ended) or not commands
        reward = self._checked(info) if done else None
        return LiveStep(observation=screen, reward=reward, done=done, info=info)

    def _checked(self, info: dict[str, object]) -> float | None:
        """Run the task's check (None without one), noting its outcome in `info`."""
        check = self._task.task.check
        if check is None or self._sandbox is None:
            return None
        result = run_check(self._sandbox, check, timeout_s=self.config.action_timeout_s)
        info["check"] = {"passed": result.passed, "output": result.output}
        return float(result.passed)

    def prompt_context(self) -> PromptContext:
        """The task text (terminal prompts carry no tool definitions)."""
        return PromptContext(task=self._task.task.goal or None)

    def _stop_shell(self) -> None:
        """Kill the shell's namespace and see tmux reap the pane's process before tmux goes.

        Killed first, tmux would leave that process to the host's PID 1 (see `_dead` for the
        SIGCHLD tmux sometimes misses).
        """
        if self._server is None or self._tmux is None:
            return
        panes = self._tmux.cmd("list-panes", "-a", "-F", "#{pane_pid}").stdout
        pids = [int(pid) for pid in panes if pid.isdigit()]
        stop_trees(pids)
        deadline = time.monotonic() + STATUS_WAIT_S
        while any(Path(f"/proc/{pid}").exists() for pid in pids) and time.monotonic() < deadline:
            os.kill(self._server.pid, signal.SIGCHLD)
            time.sleep(0.01)

    def close(self) -> None:
        """Stop the shell, the tmux server and the sandbox; remove every file."""
        if self._sandbox is not None:
            self._sandbox.resume()
            keep = [self._server.pid] if self._server is not None else []
            self._stop_shell()
            self._sandbox.stop(keep=keep)
        if self._server is not None:
            self._server.kill()
            self._server.wait()
            self._server = None
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None
        self._tmux = None
        self._pane = ""


def _tasks() -> list[LiveTask]:
    return [task.task for task in SHELL_TASKS.values()]


def _missing() -> str:
    return missing_sandbox(("tmux", "git"))


TERMINAL = LIVE.register("terminal", LiveKind("terminal", TerminalEnvironment, _tasks, _missing))
