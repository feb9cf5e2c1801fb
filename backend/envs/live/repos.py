"""The task repositories shipped with the package: small real projects with a failing test.

Each lives in `tasks/<name>/`: `task.json` (a one-line description, the issue text that is the
agent's goal, and a scripted solution: the tool calls that fix it, then `submit`), `repo/`, the
project itself, and `check/tests/`, the hidden copy of its tests (with more cases) that decides
success, which the agent never sees. They are ours, written for the playground, so that a live
swe session has something real to fix with no download.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

from backend.envs.live.base import LiveTask
from backend.envs.live.checks import hidden_tests
from backend.envs.live.sandbox import Sandbox
from backend.envs.live.shipped import copy_shipped
from backend.errors import LiveEnvironmentError

AUTHOR = ("playground", "playground@localhost")


@dataclass(frozen=True)
class TaskRepo:
    """A shipped task: its LiveTask, the project's folder and the folder of its hidden tests."""

    task: LiveTask
    files: Traversable
    hidden: Traversable

    def checked_at(self, root: str) -> LiveTask:
        """The task, checked by its hidden tests against the project at `root` in the sandbox."""
        return replace(self.task, check=hidden_tests(self.hidden, root))


@functools.cache
def task_repos() -> dict[str, TaskRepo]:
    """Every shipped task repository by name, sorted."""
    root = resources.files("backend.envs.live").joinpath("tasks")
    repos = {}
    for folder in sorted(root.iterdir(), key=lambda entry: entry.name):
        spec = folder.joinpath("task.json")
        if not spec.is_file():
            continue
        data = json.loads(spec.read_text(encoding="utf-8"))
        solution = tuple(json.dumps(call) for call in data.get("solution", []))
        task = LiveTask(folder.name, data["description"], data["goal"], solution=solution)
        repos[folder.name] = TaskRepo(task, folder.joinpath("repo"), folder.joinpath("check"))
    return repos


def git_commit(author: tuple[str, str] = AUTHOR) -> str:
    """A `git commit` command line with a fixed author (the sandbox has no git config)."""
    name, email = author
    return f"git -c user.name='{name}' -c user.email={email} commit -q"


def commit_repo(
    sandbox: Sandbox,
    task: str,
    folder: Path,
    inside: str,
    *,
    timeout_s: float,
    binds: Mapping[Path, str] | None = None,
    message: str = "Initial commit",
    author: tuple[str, str] = AUTHOR,
    then: str = "",
) -> str:
    """Copy task repository `task` into `folder` and commit it there, inside the sandbox.

    Args:
        sandbox: the open sandbox.
        task: a shipped task name.
        folder: a fresh, empty host folder of the sandbox's scratch space.
        inside: where the sandbox sees `folder`.
        timeout_s: time limit of the git commands.
        binds: the binds that show `folder` at `inside`, when it is not under the home.
        message: the commit message.
        author: the commit's author name and e-mail.
        then: more shell commands run in the repository after the commit.

    Returns:
        The commit id.

    Raises:
        LiveEnvironmentError: git failed.
    """
    copy_shipped(task_repos()[task].files, folder, sandbox.uid)
    script = f"git init -q -b main && git add -A && {git_commit(author)} -m '{message}'"
    script += f" && git rev-parse HEAD{f' && {then}' if then else ''}"
    done = sandbox.run(["bash", "-c", script], timeout_s=timeout_s, cwd=inside, binds=binds)
    if done.exit_code != 0:
        raise LiveEnvironmentError(f"Could not set up the repository {inside}: {done.output}")
    return done.output.split()[0]
