"""Which control groups this machine offers sandboxes, and which limits that leaves to hold.

Detection only: the cgroup mounts are read (v1, one mount per controller; v2, one unified mount
with the memory, cpu and pids controllers), then a test group is made and removed, once per
process. Without either version, or without root, `unavailable()` says why, and `limits_held`
states what bounds a sandbox instead. The groups themselves are `backend.envs.live.cgroups`.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from backend.envs.live.base import LiveConfig

TOP = "awp-live"
V1 = ("memory", "cpu", "cpuacct", "pids", "freezer")
V2 = ("memory", "cpu", "pids")


@dataclass(frozen=True)
class Hierarchy:
    """Where the cgroup filesystem is mounted, and which version it speaks.

    Attributes:
        version: 1 or 2; 0 when sandboxes get no cgroup (then `reason` says why).
        mounts: v1: the mount of each controller; v2: the unified mount under "" .
        reason: why cgroups are not used.
    """

    version: int
    mounts: dict[str, Path]
    reason: str = ""


def _mounts() -> list[tuple[str, Path, set[str]]]:
    found = []
    for line in Path("/proc/self/mounts").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2] in ("cgroup", "cgroup2"):
            found.append((parts[2], Path(parts[1]), set(parts[3].split(","))))
    return found


def _probe(hierarchy: Hierarchy) -> str:
    """Make and remove a test group in every mount; "" when that works, else what failed."""
    name = f"probe-{uuid.uuid4().hex[:8]}"
    made: list[Path] = []
    mount = Path("/")
    try:
        for mount in dict.fromkeys(hierarchy.mounts.values()):
            top = mount / TOP
            top.mkdir(exist_ok=True)
            if hierarchy.version == 2:
                enable(mount)
                enable(top)
            (top / name).mkdir()
            made.append(top / name)
    except OSError as exc:
        if exc.errno == errno.EBUSY:  # v2: a group holding processes cannot give controllers
            return (
                f"cgroup v2 at {mount} holds the app's processes in a group that cannot pass "
                "controllers on (a container's own group); start the app in a child group"
            )
        return f"the cgroup tree at {mount} is not writable ({exc.strerror})"
    finally:
        for path in made:
            with contextlib.suppress(OSError):
                path.rmdir()
    return ""


def enable(group: Path) -> None:
    """Let `group`'s children use the memory, cpu and pids controllers (cgroup v2)."""
    wanted = " ".join(f"+{name}" for name in V2)
    if not set(V2) <= set((group / "cgroup.subtree_control").read_text().split()):
        (group / "cgroup.subtree_control").write_text(wanted)


def detect(mounts: list[tuple[str, Path, set[str]]]) -> Hierarchy:
    """The hierarchy that `mounts` (kind, mount point, options) offer, before any write.

    cgroup v1 needs one mount for each of V1; v2 a unified mount whose `cgroup.controllers`
    lists all of V2 (on a hybrid machine, v1 holds them and the unified mount has none).
    """
    v1 = {c: path for kind, path, opts in mounts if kind == "cgroup" for c in V1 if c in opts}
    if set(v1) == set(V1):
        return Hierarchy(1, v1)
    unified = [path for kind, path, _ in mounts if kind == "cgroup2"]
    if not unified:
        return Hierarchy(0, {}, f"no cgroup v1 {'/'.join(V1)} mounts and no cgroup v2 mount")
    offered = read(unified[0] / "cgroup.controllers").split()
    lacking = [name for name in V2 if name not in offered]
    if not lacking:
        return Hierarchy(2, {"": unified[0]})
    return Hierarchy(
        0,
        {},
        f"no cgroup v1 {'/'.join(V1)} mounts, and cgroup v2 at {unified[0]} lacks "
        f"{', '.join(lacking)} (it offers {', '.join(offered) or 'no controller'})",
    )


@functools.cache
def hierarchy() -> Hierarchy:
    """Decide once which cgroups sandboxes get here (see the module docstring).

    Not as root, a sandbox shares the app's uid and gets no group, whatever the probe finds; the
    probe still runs, so the reason says what this user may do with the cgroup tree.
    """
    found = detect(_mounts())
    if not found.version:
        return found
    reason = _probe(found)
    if os.geteuid() != 0:
        said = reason or "sandboxes that share its uid get no group of their own"
        return Hierarchy(0, {}, f"the app runs as uid {os.geteuid()}, not root; {said}")
    return Hierarchy(0, {}, reason) if reason else found


def enabled() -> bool:
    """True when sandboxes get whole-sandbox limits here."""
    return hierarchy().version > 0


def unavailable() -> str:
    """Why sandboxes get no whole-sandbox limits here ("" when they do), for the UI and CLI."""
    return hierarchy().reason


def active(wanted: bool) -> bool:
    """True when a sandbox whose config asks for cgroups (`wanted`) gets its group here."""
    return wanted and enabled()


def limits_held(config: LiveConfig) -> str:
    """One sentence saying which limits bound a live sandbox here, with their figures.

    The one place the UI learns it: whole-sandbox limits where cgroups hold, otherwise (an
    unprivileged Space, or `AWP_LIVE_CGROUPS=off`) only the per-process ones, and what that
    leaves unbounded.
    """
    if active(config.cgroups):
        return (
            f"Limits hold per sandbox (cgroups): all its processes together, a web browser "
            f"included, get {config.memory_mb} MB of memory plus its {config.disk_mb} MB of "
            f"files, {config.cpu_share:g} CPU core(s), {config.sandbox_cpu_seconds} CPU seconds "
            f"and {config.processes} tasks, and it is frozen between actions."
        )
    reason = unavailable() if config.cgroups else "switched off (`AWP_LIVE_CGROUPS=off`)"
    if os.geteuid() == 0:  # each sandbox has its own uid and a tmpfs of its own
        bounded = f"a sandbox {config.processes} processes and {config.disk_mb} MB of files"
    else:  # one uid for the app and every sandbox, no tmpfs
        bounded = (
            f"files of at most {config.file_mb} MB each, and the app's uid, shared by every "
            f"sandbox, {config.processes} processes more than the app had when each started"
        )
    return (
        f"Limits hold per process only (no cgroups: {reason}): each process gets "
        f"{config.memory_mb} MB of address space and {config.cpu_seconds} CPU seconds, "
        f"{bounded}; its processes together, and a web browser, have no memory or CPU limit, "
        "and background work runs between actions."
    )


def read(path: Path) -> str:
    """A cgroup file's text, "" where it is missing or unreadable (a controller not mounted)."""
    try:
        return path.read_text()
    except OSError:
        return ""
