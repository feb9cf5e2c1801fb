"""A shell that exec's commands and reads and writes files, answered by a world model or a sandbox.

Eval harnesses (Inspect AI's sandboxes, Harbor's environments) reach an environment through
three calls: run a command, read a file, write a file. Two backings answer them:

- `SimShell`: the terminal world model. A command is typed at a terminal (`command; echo
  "[exit $?]"`, so the exit status is on the screen the model predicts), and its output and
  status are read back from the predicted screen. A written file is typed as a heredoc, so the
  model sees it in its history, and kept: reading it back returns exactly what was written, as
  a real file would (the judges' rule for content made in the session). Any other file is read
  with `cat`, as the model predicts it.
- `LiveShell`: a live sandbox (bubblewrap, no network, bounded), where everything really runs.

Every call is one step of one `terminal` session (kind `inspect`): the model's prediction, or
the sandbox's screen as the step's real observation (origin live), so an eval's commands reach
Replay, Annotate and the exports.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field, replace
from typing import Protocol

from backend.envs.live.base import LiveConfig
from backend.envs.live.sandbox import HOME, Sandbox
from backend.errors import BadInputError
from backend.provenance import Live, Provenance
from backend.recording import NewSession, Recorder, SessionTarget, StepInput
from backend.simulate import Simulator
from backend.sources import live
from backend.stepping import record_prediction, step_batch
from backend.types import (
    HistoryMode,
    Prediction,
    PromptContext,
    SamplingParams,
    SimRequest,
    Turn,
)

DOMAIN = "terminal"
SESSION_KIND = "inspect"
PROMPT = "root@sandbox:~# "
"""The prompt of the simulated shell's first screen (the state before the first command)."""
EXIT_MARK = re.compile(r"^\[exit (\d{1,3})\]\s*$", re.MULTILINE)
HEREDOC = "AWP_EOF"
DURATION_S = 1.0
"""The wait the terminal action gives a command (the world model predicts its end state)."""


@dataclass(frozen=True)
class ShellResult:
    """What one command did: its output, its exit status, its error output (often merged).

    `provenance` is where the screen it was read from came from (`backend.provenance`): the
    world model's prediction, or a live sandbox's run; None where nothing was stored.
    """

    returncode: int
    stdout: str
    stderr: str = ""
    provenance: Provenance | None = None


def command_text(cmd: list[str]) -> str:
    """The command line `cmd` stands for: `bash -c SCRIPT` is SCRIPT, anything else quoted."""
    if len(cmd) >= 3 and cmd[0] in ("bash", "sh") and cmd[-2] == "-c":
        return cmd[-1]
    return shlex.join(cmd)


def typed(command: str, stdin: str | None = None, cwd: str | None = None) -> str:
    """What is typed at the terminal for one command, its exit status echoed after it."""
    line = f"cd {shlex.quote(cwd)} && {{ {command}; }}" if cwd else command
    if stdin is not None:
        line = f"{{ {line}; }} <<'{HEREDOC}'\n{stdin.rstrip(chr(10))}\n{HEREDOC}"
        return f'{line}\necho "[exit $?]"\n'
    return f'{line}; echo "[exit $?]"\n'


def terminal_action(keys: str) -> str:
    """A terminal action that types `keys` and waits for the output."""
    return json.dumps([{"keystrokes": keys, "duration": DURATION_S}], ensure_ascii=False)


def read_screen(screen: str) -> ShellResult:
    """The output and exit status a screen shows after a typed command.

    The output is what lies between the command's last typed line and the `[exit N]` line; a
    screen without that line (the model left it out) counts as exit status 0 when it shows no
    next prompt either, since nothing says the command failed.
    """
    marks = list(EXIT_MARK.finditer(screen))
    if not marks:
        lines = screen.rstrip().split("\n")
        body = lines[1:] if len(lines) > 1 else []
        return ShellResult(0, "\n".join(body) + ("\n" if body else ""))
    mark = marks[-1]
    before = screen[: mark.start()]
    echo = before.rfind('echo "[exit $?]"')
    start = before.find("\n", echo) + 1 if echo >= 0 else 0
    output = before[start:]
    return ShellResult(int(mark.group(1)), output)


class ShellBacking(Protocol):
    """What answers a shell: the world model (`SimShell`) or a live sandbox (`LiveShell`)."""

    def exec(
        self, cmd: list[str], stdin: str | None = None, cwd: str | None = None, timeout: float = 60
    ) -> ShellResult:
        """Run a command."""
        ...

    def write_file(self, path: str, contents: str) -> None:
        """Write a text file (its folders made)."""
        ...

    def read_file(self, path: str) -> str:
        """Read a text file.

        Raises:
            FileNotFoundError: there is no such file.
        """
        ...

    def close(self) -> None:
        """Release what the shell holds."""
        ...


@dataclass
class SimShell:
    """The terminal world model as a shell; every call one stored step of its session.

    Args:
        simulator: the world model.
        recorder: where steps are stored.
        params: its sampling.
        task: the eval sample's task, told to the world model.
        initial_state: the screen before the first command.
    """

    simulator: Simulator
    recorder: Recorder
    params: SamplingParams
    task: str | None = None
    initial_state: str = PROMPT
    files: dict[str, str] = field(default_factory=dict)
    _turns: list[Turn] = field(default_factory=list, init=False)
    _session: int | None = field(default=None, init=False)

    def _step(self, keys: str) -> Prediction:
        request = SimRequest(
            domain=DOMAIN,
            context=PromptContext(task=self.task),
            initial_state=self.initial_state,
            history=list(self._turns),
            action=terminal_action(keys),
            history_mode=HistoryMode.TEACHER_FORCED,
            params=self.params,
        )
        ((sample,),) = step_batch(self.simulator, [request])
        prediction = sample.made()
        target: SessionTarget = self._session or NewSession.for_request(
            request, SESSION_KIND, world=self.simulator.spec
        )
        outcome = record_prediction(
            self.recorder, target, request, prediction, scores=sample.scores
        )
        self._session = outcome.session_id
        self._turns.append(Turn(action=prediction.action, predicted=prediction.observation))
        return prediction

    def exec(
        self, cmd: list[str], stdin: str | None = None, cwd: str | None = None, timeout: float = 60
    ) -> ShellResult:
        """The command's output and status as the predicted screen shows them."""
        made = self._step(typed(command_text(cmd), stdin, cwd))
        return replace(read_screen(made.observation), provenance=made.provenance)

    def write_file(self, path: str, contents: str) -> None:
        """Type the file as a heredoc (so the model knows it) and keep its exact contents."""
        quoted = shlex.quote(path)
        body = contents.rstrip("\n")
        folder = f'mkdir -p "$(dirname {quoted})"'
        self._step(f"{folder} && cat > {quoted} <<'{HEREDOC}'\n{body}\n{HEREDOC}\n")
        self.files[path] = contents

    def read_file(self, path: str) -> str:
        """A file written in this shell exactly; any other as the model predicts `cat` shows it.

        Raises:
            FileNotFoundError: the predicted `cat` fails.
        """
        if path in self.files:
            return self.files[path]
        result = self.exec(["cat", path])
        if result.returncode != 0:
            raise FileNotFoundError(path)
        return result.stdout

    def close(self) -> None:
        """Nothing to release: every step is already stored."""


@dataclass
class LiveShell:
    """A live sandbox as a shell: commands run for real, each stored as a live step.

    Args:
        config: the live sandbox's limits.
        recorder: where steps are stored.
        params: the session's sampling settings (no prediction is made; stored for its record).
        task: the eval sample's task.
    """

    config: LiveConfig
    recorder: Recorder
    params: SamplingParams
    task: str | None = None
    _sandbox: Sandbox | None = field(default=None, init=False)
    _session: int | None = field(default=None, init=False)

    def _open(self) -> Sandbox:
        if self._sandbox is None:
            self._sandbox = Sandbox(self.config).open()
        return self._sandbox

    def _store(self, keys: str, screen: str) -> Live:
        request = SimRequest(
            domain=DOMAIN,
            context=PromptContext(task=self.task),
            initial_state=PROMPT,
            action=terminal_action(keys),
            params=self.params,
        )
        target: SessionTarget = self._session or NewSession.for_request(request, SESSION_KIND)
        source = live(DOMAIN, str(self._session) if self._session else None)
        step = StepInput(request.action, screen, "live", provenance=source)
        record = self.recorder.record(target, step)
        self._session = record.session_id
        return source

    def exec(
        self, cmd: list[str], stdin: str | None = None, cwd: str | None = None, timeout: float = 60
    ) -> ShellResult:
        """Run the command in the sandbox; stdout and stderr arrive interleaved, as on a screen."""
        command = command_text(cmd)
        workdir = cwd if cwd is None or cwd.startswith("/") else f"{HOME}/{cwd}"
        result = self._open().run(
            ["bash", "-c", command],
            timeout_s=timeout,
            stdin=stdin.encode() if stdin is not None else None,
            cwd=workdir or HOME,
        )
        keys = typed(command, stdin, cwd)
        shown = keys.rstrip("\n")
        screen = f"{PROMPT}{shown}\n{result.output}[exit {result.exit_code}]\n{PROMPT}"
        source = self._store(keys, screen)
        return ShellResult(result.exit_code, result.output, provenance=source)

    def write_file(self, path: str, contents: str) -> None:
        """Write the file in the sandbox (its folders made)."""
        quoted = shlex.quote(path)
        script = f'mkdir -p "$(dirname {quoted})" && cat > {quoted}'
        result = self.exec(["bash", "-c", script], stdin=contents)
        if result.returncode != 0:
            raise PermissionError(f"{path}: {result.stdout.strip()}")

    def read_file(self, path: str) -> str:
        """The file's text, read in the sandbox.

        Raises:
            FileNotFoundError: there is no such file.
        """
        result = self.exec(["cat", path])
        if result.returncode != 0:
            raise FileNotFoundError(path)
        return result.stdout

    def close(self) -> None:
        """Stop every process of the sandbox and remove its files."""
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None


BACKINGS = ("sim", "live")


def check_backing(name: str) -> str:
    """`name` if it is a backing this shell has.

    Raises:
        BadInputError: another name (the valid ones listed).
    """
    if name not in BACKINGS:
        raise BadInputError(f"Unknown shell backing {name!r}. Valid: {', '.join(BACKINGS)}.")
    return name
