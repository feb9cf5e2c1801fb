"""Limits for a whole sandbox, all of its processes together: one Linux control group each.

Per-process limits (`prlimit`) alone let five 400 MB processes hold 2 GB in a sandbox "limited" to
512 MB, and let a loop that restarts CPU burners run for ever. As root, where the cgroup
filesystem is writable, every sandbox (terminal, swe, mcp, and the web environment's Chromium) gets
one group `awp-live/<instance>/<sandbox>` at the top of each hierarchy, with:

- memory: the sandbox's memory and the files of its tmpfs together (no swap); the kernel's OOM
  killer picks a process of that sandbox when it is full.
- cpu: a quota of `cpu_share` cores, whatever the sandbox runs, and a CPU-time budget for the
  whole sandbox that `over_budget` reports (the caller then kills it).
- pids: tasks (threads included) of the whole sandbox.
- freezer: the environments that wait for the next action (terminal, web) freeze their sandbox
  in between, so background work runs only while an action runs.

A process enters its group through the `enter` prefix (`sh` writes its own pid, then execs the
rest) while still root; children inherit it. cgroup v1 (one mount per controller) and v2 (one
unified mount with the memory, cpu and pids controllers) are both used; without either, or without
root, `unavailable()` says why and only the per-process limits hold; that detection, and the
sentence saying which limits hold, are `backend.envs.live.cgroup_hierarchy`, re-exported here.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from backend.envs.live.cgroup_hierarchy import (
    TOP,
    V1,
    V2,
    Hierarchy,
    active,
    detect,
    enable,
    enabled,
    hierarchy,
    limits_held,
    read,
    unavailable,
)

__all__ = [
    "TOP",
    "V1",
    "V2",
    "Group",
    "Hierarchy",
    "Usage",
    "active",
    "detect",
    "enabled",
    "hierarchy",
    "limits_held",
    "remove_instance",
    "unavailable",
]

PERIOD_US = 100_000
_ENTER = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 126; shift; done; shift; exec "$@"'


@dataclass(frozen=True)
class Usage:
    """What a sandbox's group counted: the figures its limits are about.

    Attributes:
        memory_peak: most bytes of memory charged at once.
        oom_kills: processes the OOM killer ended for this sandbox.
        cpu_s: CPU seconds used by all its processes, the dead ones included.
        tasks: tasks (threads) in it now.
        tasks_peak: most tasks at once (0 where the kernel does not count it).
        refused_forks: forks refused because the sandbox had as many tasks as allowed.
        throttled: CPU periods in which the sandbox used its whole quota and had to wait.
    """

    memory_peak: int
    oom_kills: int
    cpu_s: float
    tasks: int
    tasks_peak: int
    refused_forks: int
    throttled: int


class Group:
    """One sandbox's control group, from `create` to `remove`.

    Args:
        instance: the app instance that owns it (see `instance`).
        name: the sandbox's name within the instance.
        where: the hierarchy to use; this machine's (`hierarchy()`) unless given (a test's
            cgroup v2 mount on a machine whose controllers v1 holds).
    """

    def __init__(self, instance: str, name: str, where: Hierarchy | None = None) -> None:
        self.hierarchy = where or hierarchy()
        self.relative = Path(TOP) / instance / name

    def path(self, controller: str) -> Path:
        """The group's folder in one controller's hierarchy (v2: the one folder)."""
        mount = self.hierarchy.mounts["" if self.version == 2 else controller]
        return mount / self.relative

    def _folders(self) -> list[Path]:
        return list(dict.fromkeys(self.path(c) for c in (V1 if self.version == 1 else V2)))

    @property
    def version(self) -> int:
        """The cgroup version in use (1 or 2)."""
        return self.hierarchy.version

    def create(self, memory_mb: int, cpu_share: float, tasks: int) -> None:
        """Make the group with its limits: memory (no swap), CPU cores, tasks."""
        limit = str(memory_mb * 1024 * 1024)
        quota = str(max(1000, int(cpu_share * PERIOD_US)))
        for folder in self._folders():
            for _ in range(3):  # another sandbox's `remove` may delete the instance's folder
                try:
                    if self.version == 2:
                        enable(folder.parent.parent)
                        folder.parent.mkdir(exist_ok=True)
                        enable(folder.parent)
                    folder.mkdir(parents=True)
                    break
                except FileNotFoundError:
                    continue
        if self.version == 1:
            memory = self.path("memory")
            (memory / "memory.limit_in_bytes").write_text(limit)
            with contextlib.suppress(FileNotFoundError):  # swap accounting off: no swap limit
                (memory / "memory.memsw.limit_in_bytes").write_text(limit)
            (self.path("cpu") / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (self.path("cpu") / "cpu.cfs_quota_us").write_text(quota)
            (self.path("pids") / "pids.max").write_text(str(tasks))
        else:
            folder = self.path("")
            (folder / "memory.max").write_text(limit)
            with contextlib.suppress(FileNotFoundError):
                (folder / "memory.swap.max").write_text("0")
            (folder / "cpu.max").write_text(f"{quota} {PERIOD_US}")
            (folder / "pids.max").write_text(str(tasks))

    def procs(self) -> list[Path]:
        """The files a process writes its pid to, to enter the group (one per hierarchy)."""
        return [folder / "cgroup.procs" for folder in self._folders()]

    def enter(self) -> list[str]:
        """The prefix that moves a program into the group before it execs (run it as root)."""
        return ["/bin/sh", "-c", _ENTER, "sh", *map(str, self.procs()), "--"]

    def pids(self) -> list[int]:
        """The processes in the group now."""
        text = read(self.path("memory") / "cgroup.procs")
        return [int(pid) for pid in text.split()]

    def freeze(self) -> None:
        """Stop every process of the group where it stands until `thaw` (waits until done)."""
        self._set_frozen(True)

    def thaw(self) -> None:
        """Let the group's processes run again."""
        self._set_frozen(False)

    def _set_frozen(self, frozen: bool) -> None:
        if self.version == 1:
            state = self.path("freezer") / "freezer.state"
            wanted = "FROZEN" if frozen else "THAWED"
            with contextlib.suppress(FileNotFoundError):
                state.write_text(wanted)
                _until(lambda: read(state).strip() == wanted)
        else:
            folder = self.path("")
            with contextlib.suppress(FileNotFoundError):
                (folder / "cgroup.freeze").write_text("1" if frozen else "0")
                events = folder / "cgroup.events"
                _until(lambda: f"frozen {int(frozen)}" in read(events))

    @property
    def frozen(self) -> bool:
        """True while the group is frozen."""
        if self.version == 1:
            return read(self.path("freezer") / "freezer.state").strip() == "FROZEN"
        return "frozen 1" in read(self.path("") / "cgroup.events")

    def kill(self) -> None:
        """SIGKILL every process of the group, and wait until none is left (at most 5 s)."""
        if not self.path("memory").exists():
            return
        self.freeze()  # nothing forks while we kill
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.thaw()  # a frozen process only dies once it runs again
        _until(lambda: not self.pids(), timeout_s=5.0)

    def usage(self) -> Usage:
        """The group's counters now (see `Usage`)."""
        pids = self.path("pids")
        if self.version == 1:
            memory = self.path("memory")
            peak = int(read(memory / "memory.max_usage_in_bytes") or 0)
            oom = _field(read(memory / "memory.oom_control"), "oom_kill")
            cpu = int(read(self.path("cpuacct") / "cpuacct.usage") or 0) / 1e9
        else:
            peak = int(read(pids / "memory.peak") or 0)
            oom = _field(read(pids / "memory.events"), "oom_kill")
            cpu = _field(read(pids / "cpu.stat"), "usage_usec") / 1e6
        return Usage(
            memory_peak=peak,
            oom_kills=oom,
            cpu_s=cpu,
            tasks=int(read(pids / "pids.current") or 0),
            tasks_peak=int(read(pids / "pids.peak") or 0),
            refused_forks=_field(read(pids / "pids.events"), "max"),
            throttled=_field(read(self.path("cpu") / "cpu.stat"), "nr_throttled"),
        )

    def remove(self) -> None:
        """Kill what is left and delete the group (safe to call twice)."""
        self.kill()
        for folder in self._folders():
            _remove_tree(folder)
            with contextlib.suppress(OSError):  # the instance's folder, once its last one goes
                folder.parent.rmdir()


def remove_instance(instance: str) -> None:
    """Kill every process in a (dead) instance's groups and delete them all."""
    found = hierarchy()
    if not found.version:
        return
    probe = Group(instance, "x")
    top = probe.path("memory").parent
    if not top.is_dir():
        return
    for child in sorted(p for p in top.iterdir() if p.is_dir()):
        Group(instance, child.name).remove()
    for folder in {Group(instance, "x").path(c).parent for c in found.mounts}:
        _remove_tree(folder)


def _remove_tree(folder: Path) -> None:
    """Delete a group and its children, deepest first (a cgroup folder holds no plain files)."""
    if not folder.is_dir():
        return
    for child in [p for p in folder.iterdir() if p.is_dir()]:
        _remove_tree(child)
    for _ in range(50):  # a killed process leaves its group a moment after it died
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.02)


def _field(text: str, key: str) -> int:
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return int(value)
    return 0


def _until(done: Callable[[], bool], timeout_s: float = 2.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not done() and time.monotonic() < deadline:
        time.sleep(0.005)
