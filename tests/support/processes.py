"""This process's descendants, read from /proc: to check that nothing is left running."""

from __future__ import annotations

import os
from pathlib import Path


def descendants(root: int | None = None) -> dict[int, str]:
    """Live descendant processes of `root` (default: this process): pid -> program.

    Zombies are left out.

    The program is the first word of the command line: Chromium's zygote children rewrite theirs
    as one string, and inside bubblewrap the pids still chain up to this process on the host.
    """
    parents: dict[int, int] = {}
    programs: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            program = (entry / "cmdline").read_bytes().split(b"\0")[0].split(b" ")[0]
        except (OSError, IndexError):
            continue
        if fields[0] != "Z":
            parents[int(entry.name)] = int(fields[1])
            programs[int(entry.name)] = program.decode(errors="replace")
    top = os.getpid() if root is None else root
    ours: dict[int, str] = {}
    for pid in parents:
        ancestor = parents.get(pid)
        while ancestor and ancestor != top:
            ancestor = parents.get(ancestor)
        if ancestor == top:
            ours[pid] = programs[pid]
    return ours


def status(pid: int, field: str) -> str:
    """The first value of `field` in /proc/<pid>/status (`Uid`, `Seccomp`, ...)."""
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return next(line.split()[1] for line in lines if line.startswith(f"{field}:"))
