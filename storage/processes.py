"""Which process holds a run, so that the next start can tell a dead run from a running one.

A run stores `host:pid:start` of the process running it; the start time (clock ticks since
boot, from `/proc`) tells a reused pid from the original. A run whose process on this host is
gone was killed (kill -9, OOM, power) and is marked `interrupted` by the next process to open
the run store; runs held by other hosts, or by processes still alive, are left alone.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path


def _start_ticks(pid: int) -> str | None:
    """The process's start time in clock ticks since boot, or None when it does not exist."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: count after the last ')'.
    return stat.rsplit(")", 1)[1].split()[19]


def this_process() -> str:
    """The key of the running process: `host:pid:start`."""
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_start_ticks(pid) or 0}"


def is_dead(key: str) -> bool:
    """Whether the process `key` names ran on this host and no longer runs."""
    host, _, rest = key.partition(":")
    pid, _, start = rest.partition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if not Path("/proc/self/stat").exists():  # no /proc: only a missing pid is known dead
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False
    return _start_ticks(int(pid)) != start
