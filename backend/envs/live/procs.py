"""Finding and stopping a sandbox's processes without leaving zombies behind.

Every sandboxed program runs inside a bwrap pid namespace. Killing the namespace's first process
(its init) makes the kernel kill everything else inside; the bwrap monitor above it then exits on
its own and is reaped by its parent (this process or the tmux server). Killing parents and
children in any order instead leaves orphans for the host's PID 1 to reap, which never happens in
a container whose PID 1 is the app itself.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True)
class Proc:
    """One process as /proc shows it.

    Attributes:
        pid: host pid.
        ppid: host pid of the parent.
        uid: real uid.
        state: one-letter state (`Z` for a zombie).
        nspid: the pid in each nested pid namespace, outermost first.
    """

    pid: int
    ppid: int
    uid: int
    state: str
    nspid: tuple[int, ...]

    @property
    def namespace_init(self) -> bool:
        """True for the first process of a nested pid namespace (pid 1 inside)."""
        return len(self.nspid) > 1 and self.nspid[-1] == 1


def _read(pid: int) -> Proc | None:
    try:
        text = (PROC / str(pid) / "status").read_text()
    except OSError:  # gone meanwhile
        return None
    fields = dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)
    return Proc(
        pid=pid,
        ppid=int(fields.get("PPid", "0")),
        uid=int(fields.get("Uid", "-1").split()[0]),
        state=fields.get("State", "?")[:1],
        nspid=tuple(int(part) for part in fields.get("NSpid", str(pid)).split()),
    )


def processes(uid: int | None = None) -> list[Proc]:
    """Every process on the host (zombies included), or those whose real uid is `uid`."""
    found = []
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            proc = _read(int(entry.name))
            if proc is not None and (uid is None or proc.uid == uid):
                found.append(proc)
    return found


def thread_count(uid: int) -> int:
    """Threads of `uid`'s processes: what RLIMIT_NPROC counts."""
    total = 0
    for proc in processes(uid):
        try:
            total += len(os.listdir(PROC / str(proc.pid) / "task"))
        except OSError:
            continue
    return total


def cmdline(pid: int) -> list[str]:
    """A process's argument vector ([] once it is gone)."""
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return []
    return raw.decode(errors="replace").split("\0")[:-1]


def _kill(pids: Collection[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _wait(alive: Callable[[], list[Proc]], timeout_s: float) -> list[Proc]:
    deadline = time.monotonic() + timeout_s
    delay = 0.005
    while True:
        left = alive()
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def stop_trees(tops: Collection[int], timeout_s: float = 3.0) -> None:
    """Stop the bwrap processes `tops` by killing the namespace inits below them.

    Their parents reap them. A top still running afterwards (one that is not a bwrap monitor)
    is killed outright.
    """
    if not tops:
        return
    _kill([p.pid for p in processes() if p.ppid in tops and p.namespace_init])

    def running() -> list[Proc]:
        return [p for p in processes() if p.pid in tops and p.state != "Z"]

    _kill([p.pid for p in _wait(running, timeout_s)])


def stop_uid(uid: int, keep: Collection[int] = (), timeout_s: float = 5.0) -> list[Proc]:
    """Kill every process of `uid` except `keep`, namespace inits first; return what is left.

    Only for a uid that belongs to one sandbox alone (never the app's own uid).

    Returns:
        The processes (zombies included) still present after the timeout.
    """
    _kill([p.pid for p in processes(uid) if p.namespace_init and p.pid not in keep])

    def inside() -> list[Proc]:
        return [p for p in processes(uid) if len(p.nspid) > 1]

    _wait(inside, min(1.0, timeout_s))  # let the monitors reap their namespaces first

    def left() -> list[Proc]:
        found = [p for p in processes(uid) if p.pid not in keep]
        _kill([p.pid for p in found if p.state != "Z"])  # zombies only wait for their parent
        return found

    return _wait(left, timeout_s)
