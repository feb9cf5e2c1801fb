"""The task repositories shipped with the package: small real projects with a failing test.

Each lives in `tasks/<name>/`: `task.json` (a one-line description and the issue text that is the
agent's goal) and `repo/`, the project itself. They are ours, written for the playground, so that
a live swe session has something real to fix with no download.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

from backend.envs.live.base import LiveTask

TEST_COMMAND = "python -m pytest -q"


@dataclass(frozen=True)
class TaskRepo:
    """A shipped task: its LiveTask and the folder holding the project."""

    task: LiveTask
    files: Traversable


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
        task = LiveTask(folder.name, data["description"], data["goal"])
        repos[folder.name] = TaskRepo(task, folder.joinpath("repo"))
    return repos


def copy_repo(source: Traversable, target: Path, uid: int) -> None:
    """Copy a shipped project into a fresh folder no sandbox has touched yet, owned by `uid`.

    Only called on a folder this process just created: writing as root into a folder a
    sandboxed program could already have filled with symlinks would be unsafe.
    """
    for entry in source.iterdir():
        if entry.name == "__pycache__":
            continue
        destination = target / entry.name
        if entry.is_dir():
            destination.mkdir(mode=0o755)
            copy_repo(entry, destination, uid)
        else:
            with entry.open("rb") as reader, destination.open("wb") as writer:
                shutil.copyfileobj(reader, writer)
        os.chown(destination, uid, uid)
