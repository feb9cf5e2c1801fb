"""The live terminal's tasks: a start state (files in the home, a project) and a shell check each.

Every task with a goal is checked by a program of `checks`, run when the agent confirms it is
done (the empty action) or the shell ends: a file with the right content, read without following
symlinks (a link to the expected file is no copy of it), or a program's exit status and output.
`backup` also refuses a hard link, which is the original under a second name, not a copy.
`shell` is a plain start state without a goal, so it has no check.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from backend.envs.live.base import Check, LiveTask
from backend.envs.live.repos import commit_repo, task_repos
from backend.envs.live.sandbox import HOME, Sandbox
from backend.errors import LiveEnvironmentError

PROJECT = f"{HOME}/project"
REPORT = "Quarterly report\n\nSales rose by 4 %; costs fell by 2 %.\n"
LOG = (
    "09:00 INFO start\n09:01 ERROR disk full\n09:02 INFO retry\n"
    "09:03 ERROR disk full\n09:04 WARN slow\n09:05 ERROR timeout\n09:06 INFO stop\n"
)
NAMES = "mallory\nalice\ntrent\nbob\ncarol\n"


@dataclass(frozen=True)
class ShellTask:
    """A terminal task: its LiveTask (with its check), the files it starts with, its project.

    Attributes:
        task: name, description, goal and check.
        files: text files written into the home (paths relative to it) before the shell starts.
        repo: a shipped task repository committed at ~/project ("" for none).
    """

    task: LiveTask
    files: dict[str, str] = field(default_factory=dict)
    repo: str = ""

    def prepare(self, sandbox: Sandbox, timeout_s: float) -> None:
        """Write the task's files and project into the fresh sandbox's home."""
        write_files(sandbox, self.files, timeout_s)
        if self.repo:
            project = sandbox.home / "project"
            project.mkdir(mode=0o755)
            os.chown(project, sandbox.uid, sandbox.uid)
            commit_repo(sandbox, self.repo, project, PROJECT, timeout_s=timeout_s)


def write_files(sandbox: Sandbox, files: dict[str, str], timeout_s: float) -> None:
    """Write text files under the home as the sandbox uid (so nothing is written as root there).

    Raises:
        LiveEnvironmentError: the files could not be written.
    """
    if not files:
        return
    script = "; ".join(
        f"mkdir -p {_quoted(str(Path(path).parent))} && printf %s {_quoted(text)} > {_quoted(path)}"
        for path, text in files.items()
    )
    done = sandbox.run(["bash", "-c", script], timeout_s=timeout_s, cwd=HOME)
    if done.exit_code != 0:
        raise LiveEnvironmentError(f"Could not write the task's files: {done.output.strip()}")


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _file_is(path: str, expected: str, what: str) -> Check:
    """A check that `path` is a regular file (no symlink) whose text, stripped, is `expected`."""
    program = f"""
text = text_of({path!r})
passed(text is not None and text.strip() == {expected.strip()!r}, {what!r})
"""
    return Check(f"{path} is a regular file holding {what}", program)


_BACKUP = f"""
copy, original = text_of("{HOME}/backup/report.txt"), text_of("{HOME}/data/report.txt")
# A hard link is the same file under a second name: editing it would edit the original.
apart = copy is not None and os.stat("{HOME}/backup/report.txt").st_nlink == 1
passed(apart and copy == original == {REPORT!r}, "a real copy beside the untouched original")
"""
_GREET = f"""
script = "{HOME}/bin/greet"
regular = text_of(script) is not None and os.access(script, os.X_OK)
passed(regular and output_of([script]) == "hi there\\n", "an executable that prints hi there")
"""


def solved_by(command: str) -> tuple[str, ...]:
    """A scripted solution: type `command`, let it run, then say the task is done (`[]`)."""
    return (json.dumps([{"keystrokes": f"{command}\n", "duration": 1.0}]), "[]")


SHELL_TASKS = {
    task.task.name: task
    for task in (
        ShellTask(LiveTask("shell", "bash in an empty home folder")),
        ShellTask(
            LiveTask(
                "project",
                "bash in a home folder holding a small Python project under git (~/project)",
                "Explore ~/project, run its tests and fix the failing one.",
                task_repos()["wordfreq"].checked_at(PROJECT).check,
                solved_by(
                    "sed -i 's/findall(text)/findall(text.lower())/' ~/project/wordfreq/counter.py"
                ),
            ),
            repo="wordfreq",
        ),
        ShellTask(
            LiveTask(
                "hello",
                "bash in an empty home folder; write one line to a file",
                "Write the line `hello, world` into the file ~/hello.txt.",
                _file_is(f"{HOME}/hello.txt", "hello, world", "the line 'hello, world'"),
                solved_by("echo 'hello, world' > ~/hello.txt"),
            )
        ),
        ShellTask(
            LiveTask(
                "backup",
                "bash with a report in ~/data; copy it to a new folder",
                "Make the folder ~/backup and copy ~/data/report.txt into it, keeping the "
                "original where it is.",
                Check("~/backup/report.txt is a regular file, a copy of the original", _BACKUP),
                solved_by("mkdir ~/backup && cp ~/data/report.txt ~/backup/"),
            ),
            {"data/report.txt": REPORT},
        ),
        ShellTask(
            LiveTask(
                "errors",
                "bash with a log file in ~/logs; count its error lines",
                "Count the lines of ~/logs/app.log that contain ERROR and write the number "
                "(just the number) into ~/errors.txt.",
                _file_is(f"{HOME}/errors.txt", "3", "the number 3"),
                solved_by("grep -c ERROR ~/logs/app.log > ~/errors.txt"),
            ),
            {"logs/app.log": LOG},
        ),
        ShellTask(
            LiveTask(
                "sort",
                "bash with a list of names in ~/names.txt; sort it into a new file",
                "Write the names of ~/names.txt in alphabetical order, one a line, into "
                "~/sorted.txt.",
                _file_is(
                    f"{HOME}/sorted.txt",
                    "\n".join(sorted(NAMES.split())),
                    "the names in alphabetical order",
                ),
                solved_by("sort ~/names.txt > ~/sorted.txt"),
            ),
            {"names.txt": NAMES},
        ),
        ShellTask(
            LiveTask(
                "script",
                "bash in an empty home folder; write a small executable script",
                "Create an executable script ~/bin/greet that prints `hi there` and exits 0.",
                Check("~/bin/greet is an executable file that prints 'hi there'", _GREET),
                solved_by(
                    "mkdir -p ~/bin && printf '#!/bin/sh\\necho hi there\\n' > ~/bin/greet"
                    " && chmod +x ~/bin/greet"
                ),
            )
        ),
    )
}
