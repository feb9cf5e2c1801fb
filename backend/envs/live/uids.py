"""The pool of host uids that sandboxes drop to: one uid per live sandbox, across processes.

A uid is held with an exclusive `flock` on its lock file in ONE folder for the whole machine
(`LOCK_DIR`), so no two app processes share a uid, whatever their data directories: with a lock
folder per data directory, a second instance took a uid the first was using and, taking its
processes for a crash's leftovers, killed them. A crashed process releases its uids with its
file descriptors; a free uid that still has processes was left by one, and they are stopped. A
uid that belongs to a real account, or whose leftovers will not die, is skipped.
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

LOCK_DIR = Path("/run/awp-live-uids")
"""The machine's one folder of uid lock files (root only)."""


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


def lease_uid(
    base: int, count: int, reclaim: Callable[[int], None], lock_dir: Path = LOCK_DIR
) -> UidLease:
    """Hold the first free uid of `[base, base + count)`.

    Args:
        base: first uid of the pool.
        count: pool size.
        reclaim: called with a freshly held uid before use, to remove what a crashed holder
            left (its scratch folder and mounts).
        lock_dir: the root-only folder of the lock files, shared by every process.

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
