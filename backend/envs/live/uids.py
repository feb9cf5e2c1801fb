"""The pool of host uids that sandboxes drop to: one uid per live sandbox, across processes.

A uid is held with an exclusive `flock` on its lock file, so two app processes on one machine
never share a uid, and a crashed process releases its uids with its file descriptors. A uid that
still has processes (a crash left them) or that belongs to a real account is skipped.
"""

from __future__ import annotations

import fcntl
import os
import pwd
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from backend.envs.live.procs import processes, stop_uid
from backend.errors import LiveEnvironmentError


@dataclass
class UidLease:
    """One uid held for one sandbox until `release`."""

    uid: int
    fd: int

    def release(self) -> None:
        """Give the uid back to the pool (safe to call twice)."""
        if self.fd >= 0:
            os.close(self.fd)  # closing drops the flock
            self.fd = -1


def _account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def lease_uid(lock_dir: Path, base: int, count: int, reclaim: Callable[[int], None]) -> UidLease:
    """Hold the first free uid of `[base, base + count)`.

    Args:
        lock_dir: a root-only folder for the lock files.
        base: first uid of the pool.
        count: pool size.
        reclaim: called with a freshly held uid before use, to remove what a crashed holder
            left (its scratch folder and mounts).

    Raises:
        LiveEnvironmentError: every uid of the pool is in use.
    """
    lock_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    for uid in range(base, base + count):
        if _account(uid):
            continue
        fd = os.open(lock_dir / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        if processes(uid) and stop_uid(uid):
            os.close(fd)  # leftovers that would not die: never share a uid with them
            continue
        reclaim(uid)
        return UidLease(uid, fd)
    raise LiveEnvironmentError(
        f"All {count} sandbox uids ({base}-{base + count - 1}) are in use: close a live "
        "environment or raise the pool size."
    )
