"""Live swe environment: a git repository in the sandbox and SWE-agent-style tools against it.

The workspace is one of the shipped task repositories (`repos`), committed to git at start and
shown inside the sandbox at `/testbed`, as SWE-bench containers do. Every tool call is a one-shot
sandboxed program on that folder: `bash` runs the command with bash, `str_replace_editor` runs
`editor.py` (view / create / str_replace / insert / undo_edit), and `submit` prints the diff
against the initial commit, then runs the task's check for the environment's reward: its hidden
copy of the tests, which the agent never sees, in a clean interpreter that loads no conftest.py,
ini file or plugin from the repository (`checks.hidden_tests`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from importlib import metadata, resources
from typing import Any

from backend.domains.base import PromptContext
from backend.domains.tools import parse_tool_call, validate_tool_call
from backend.envs.live.base import LIVE, LiveConfig, LiveKind, LiveStep, LiveTask
from backend.envs.live.checks import run_check
from backend.envs.live.host import missing_sandbox, version
from backend.envs.live.repos import TaskRepo, commit_repo, task_repos
from backend.envs.live.runtime import python_executable
from backend.envs.live.sandbox import RunResult, Sandbox
from backend.errors import LiveEnvironmentError, UnknownNameError

WORKSPACE = "/testbed"
EDITOR_STATE = "/var/lib/str_replace_editor"
DEFAULT_TASK = "wordfreq"

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "description": "Run a bash command in the repository (/testbed) and return its "
            "output (stdout and stderr together). Each call starts a fresh shell there.",
            "parameters": {
                "type": "object",
                "properties": {"command": {"type": "string", "description": "The command."}},
                "required": ["command"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "str_replace_editor",
            "description": "View, create and edit files. `view` numbers a file's lines like "
            "`cat -n` (or lists a folder two levels deep); `create` writes a new file; "
            "`str_replace` replaces one exact, unique occurrence of `old_str` with `new_str`; "
            "`insert` adds `new_str` after line `insert_line`; `undo_edit` reverts the last edit "
            "of a file. Paths are absolute, e.g. /testbed/setup.py.",
            "parameters": {
                "type": "object",
                "properties": {
                    "command": {
                        "type": "string",
                        "enum": ["view", "create", "str_replace", "insert", "undo_edit"],
                    },
                    "path": {"type": "string", "description": "Absolute path."},
                    "file_text": {"type": "string", "description": "`create`: the content."},
                    "old_str": {"type": "string", "description": "`str_replace`: text to find."},
                    "new_str": {"type": "string", "description": "The replacement or insertion."},
                    "insert_line": {"type": "integer", "description": "`insert`: after line."},
                    "view_range": {
                        "type": "array",
                        "items": {"type": "integer"},
                        "description": "`view`: [first, last] lines; last -1 is the end.",
                    },
                },
                "required": ["command", "path"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "submit",
            "description": "Submit the work: shows the diff of the repository and ends the task.",
            "parameters": {"type": "object", "properties": {}},
        },
    },
]


def _shown(result: RunResult) -> str:
    text = result.output.rstrip("\n")
    if result.truncated:
        text += "\n<response clipped: the output was longer than the tool returns>"
    return text


class SweEnvironment:
    """A task repository in a sandbox, driven by `bash`, `str_replace_editor` and `submit`."""

    domain = "swe"

    def __init__(self, config: LiveConfig) -> None:
        self.config = config
        self._sandbox: Sandbox | None = None
        self._repo: TaskRepo | None = None
        self._tools: dict[str, Callable[[dict[str, Any]], LiveStep]] = {
            "bash": self._bash,
            "str_replace_editor": self._edit,
            "submit": self._submit,
        }

    @property
    def version(self) -> str:
        """Programs in the sandbox and their versions."""
        try:
            pytest = f"pytest {metadata.version('pytest')}"
        except metadata.PackageNotFoundError:
            pytest = "pytest (absent)"
        python = "Python {}.{}.{}".format(*sys.version_info[:3])
        parts = (version("bash"), version("git"), python, pytest, version("bwrap", "bubblewrap"))
        return "; ".join(parts)

    @property
    def task(self) -> LiveTask | None:
        """The task repository in use (None before the first start)."""
        return self._repo.checked_at(WORKSPACE) if self._repo is not None else None

    def start(self, task: str | None = None) -> str:
        """Copy the task repository into a fresh sandbox and commit it; returns its listing."""
        repos = task_repos()
        name = task or DEFAULT_TASK
        if name not in repos:
            raise UnknownNameError(f"Unknown swe task {name!r}. Valid: {', '.join(repos)}.")
        self.close()
        sandbox = Sandbox(self.config).open()
        self._sandbox, self._repo = sandbox, repos[name]
        try:
            testbed = sandbox.private_dir("testbed")
            sandbox.private_dir("editor")
            commit_repo(
                sandbox,
                name,
                testbed,
                WORKSPACE,
                timeout_s=self.config.action_timeout_s,
                binds={testbed: WORKSPACE},
            )
        except BaseException:
            self.close()
            raise
        return self.observe()

    def observe(self) -> str:
        """The repository's files, as `str_replace_editor view /testbed` lists them."""
        return self._edit({"command": "view", "path": WORKSPACE}).observation

    def act(self, action: str) -> LiveStep:
        """Run one tool call; a failing command or refused edit is an observation."""
        canonical = validate_tool_call(action, PromptContext(tools=TOOLS), json.dumps(TOOLS[0]))
        call = parse_tool_call(canonical)
        return self._tools[call.name](call.arguments)

    def prompt_context(self) -> PromptContext:
        """The three tools and the task's issue text."""
        return PromptContext(tools=TOOLS, task=self._repo.task.goal if self._repo else None)

    def close(self) -> None:
        """Stop the sandbox and remove the repository."""
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None

    # -- tools ----------------------------------------------------------------------------------

    def _open(self) -> Sandbox:
        if self._sandbox is None:
            raise LiveEnvironmentError("The swe environment is not started: start it first.")
        return self._sandbox

    def _shell(self, command: str) -> RunResult:
        sandbox = self._open()
        return sandbox.run(
            ["bash", "-c", command],
            timeout_s=self.config.action_timeout_s,
            cwd=WORKSPACE,
            binds={sandbox.folder / "testbed": WORKSPACE} if sandbox.folder else None,
        )

    def _bash(self, arguments: dict[str, Any]) -> LiveStep:
        command = str(arguments.get("command", ""))
        result = self._shell(command)
        text = _shown(result)
        if result.timed_out:
            limit = f"{self.config.action_timeout_s:g}"
            note = (
                f"The command '{command}' was cancelled because it took more than {limit} seconds."
            )
            text = f"{text}\n{note}" if text else note
        info = {"exit_code": result.exit_code, "elapsed_s": round(result.elapsed_s, 3)}
        return LiveStep(observation=text, info=info)

    def _edit(self, arguments: dict[str, Any]) -> LiveStep:
        sandbox = self._open()
        assert sandbox.folder is not None
        source = resources.files("backend.envs.live").joinpath("editor.py").read_text()
        result = sandbox.run(
            [python_executable(), "-I", "-S", "-c", source],
            timeout_s=self.config.action_timeout_s,
            stdin=json.dumps(arguments).encode(),
            cwd=WORKSPACE,
            binds={sandbox.folder / "testbed": WORKSPACE, sandbox.folder / "editor": EDITOR_STATE},
        )
        return LiveStep(observation=_shown(result), info={"exit_code": result.exit_code})

    def _submit(self, arguments: dict[str, Any]) -> LiveStep:
        diff = self._shell("git add -A && git diff --cached")
        task, sandbox = self.task, self._open()
        if task is None or task.check is None or sandbox.folder is None:
            raise LiveEnvironmentError("The swe environment is not started: start it first.")
        result = run_check(
            sandbox,
            task.check,
            timeout_s=self.config.action_timeout_s,
            binds={sandbox.folder / "testbed": WORKSPACE},
        )
        info = {"tests_passed": result.passed, "test_output": result.output}
        return LiveStep(observation=_shown(diff), reward=float(result.passed), done=True, info=info)


def _tasks() -> list[LiveTask]:
    return [repo.checked_at(WORKSPACE) for repo in task_repos().values()]


def _missing() -> str:
    return missing_sandbox(("git",))


SWE = LIVE.register("swe", LiveKind("swe", SweEnvironment, _tasks, _missing))
