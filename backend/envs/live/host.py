"""What this machine offers live environments: programs, privileges, versions.

Checked without starting an environment (the `missing` of every live kind comes from here), once
per process: the answers do not change while the app runs.

Two ways to sandbox exist. As root (the normal case on a server or in a container started as
root), each sandbox drops to a dedicated unprivileged host uid with `setpriv` before `bwrap`
builds its namespaces; RLIMIT_NPROC then counts per sandbox and a size-limited tmpfs bounds its
files. As an ordinary user there is no root to drop from: bwrap runs with unprivileged user
namespaces when the kernel allows them, every sandbox shares the app's uid (so the process limit
is shared with the app) and files are bounded only per file. Without either, live environments
are refused with a message that says what is missing.
"""

from __future__ import annotations

import enum
import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass

HOST_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
"""PATH for the helper programs started on the host; the app's own PATH is never used."""

PACKAGES = {
    "bwrap": "bubblewrap",
    "tmux": "tmux",
    "setpriv": "util-linux",
    "prlimit": "util-linux",
    "mount": "mount",
    "umount": "mount",
    "git": "git",
    "node": "nodejs",
}
"""Debian package of each program live environments use."""

SANDBOX_PROGRAMS = ("bwrap", "setpriv", "prlimit", "mount", "umount")


class Privilege(enum.Enum):
    """How sandboxes are made on this machine."""

    ROOT = "root"  # drop to a pool uid with setpriv, then bwrap
    USERNS = "userns"  # no root: bwrap with unprivileged user namespaces, the app's own uid
    NONE = "none"  # neither: live environments are refused


@dataclass(frozen=True)
class HostMode:
    """The privilege mode and, for NONE, why."""

    privilege: Privilege
    reason: str = ""


@functools.cache
def program(name: str) -> str | None:
    """Absolute path of a host program, looked up on the system PATH only."""
    return shutil.which(name, path=HOST_PATH)


def require(name: str) -> str:
    """Absolute path of a program that `missing_programs` has already vouched for."""
    path = program(name)
    if path is None:
        raise FileNotFoundError(f"{name} is not installed (Debian package {PACKAGES[name]})")
    return path


def missing_programs(names: tuple[str, ...]) -> str:
    """Say which Debian packages to install for `names`, or "" when all are present."""
    absent = [name for name in names if program(name) is None]
    if not absent:
        return ""
    packages = sorted({PACKAGES[name] for name in absent})
    return (
        f"install the Debian package{'s' if len(packages) > 1 else ''} {' '.join(packages)} "
        f"to enable live environments (missing: {', '.join(absent)})"
    )


@functools.cache
def host_mode() -> HostMode:
    """Decide once how sandboxes are made here (see the module docstring)."""
    if os.geteuid() == 0:
        return HostMode(Privilege.ROOT)
    bwrap = program("bwrap")
    if bwrap is None:
        return HostMode(Privilege.NONE, "bubblewrap is not installed")
    probe = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns"]
    probe += ["--ro-bind", "/", "/", "--", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=10, env={})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return HostMode(Privilege.NONE, f"bwrap could not run: {exc}")
    if done.returncode == 0:
        return HostMode(Privilege.USERNS)
    said = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "no message"
    return HostMode(
        Privilege.NONE,
        f"this process runs as uid {os.geteuid()} without root, and bwrap cannot use "
        f"unprivileged user namespaces here ({said}); run the app as root or allow user "
        "namespaces (sysctl kernel.unprivileged_userns_clone=1 / user.max_user_namespaces)",
    )


def missing_sandbox(extra: tuple[str, ...] = ()) -> str:
    """What stops a sandbox (plus the programs in `extra`) from running here; "" if nothing."""
    needed = SANDBOX_PROGRAMS if os.geteuid() == 0 else ("bwrap",)
    absent = missing_programs(needed + extra)
    if absent:
        return absent
    mode = host_mode()
    return f"live environments are off: {mode.reason}" if mode.privilege is Privilege.NONE else ""


@functools.cache
def version(name: str, label: str = "", flag: str = "--version") -> str:
    """`label X.Y.Z` from a program's own version output (`label ?` if it gives none)."""
    label = label or name
    path = program(name)
    if path is None:
        return f"{label} (absent)"
    try:
        done = subprocess.run([path, flag], capture_output=True, text=True, timeout=10, env={})
        text = done.stdout + done.stderr
    except (OSError, subprocess.TimeoutExpired):
        text = ""
    found = re.search(r"\d+(?:\.\d+)+[a-z]?", text)
    return f"{label} {found.group(0) if found else '?'}"
