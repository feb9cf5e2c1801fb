"""Copying files the package ships (task repositories, hidden tests) into a fresh folder."""

from __future__ import annotations

import os
import shutil
from importlib.abc import Traversable
from pathlib import Path


def copy_shipped(source: Traversable, target: Path, owner: int | None) -> None:
    """Copy a shipped folder into `target`, a folder this process just created.

    Only ever called on a fresh folder: writing as root into one a sandboxed program could
    already have filled with symlinks would be unsafe.

    Args:
        source: the shipped folder.
        target: the fresh folder to fill.
        owner: the uid the copies belong to (a task's working copy, the agent's to change);
            None keeps them root's and read-only inside (a check's own copy of the tests).
    """
    for entry in source.iterdir():
        if entry.name == "__pycache__":
            continue
        destination = target / entry.name
        if entry.is_dir():
            destination.mkdir(mode=0o755)
            copy_shipped(entry, destination, owner)
        else:
            with entry.open("rb") as reader, destination.open("wb") as writer:
                shutil.copyfileobj(reader, writer)
            if owner is None:
                os.chmod(destination, 0o644)
        if owner is not None:
            os.chown(destination, owner, owner)
