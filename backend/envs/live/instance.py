"""The app instance a sandbox belongs to, so app processes on one machine leave each other alone.

Every process that starts sandboxes is one instance, named `<data id>-<slot>`: the data id is a
random id written once into the work folder (`instance-id`), so two data directories never share
a name; the slot is the first `instances/<n>.lock` of the work folder this process can hold with
an `flock`, for as long as it runs (the app and an `awp rollout` on the same data directory are two
slots). Each instance keeps its scratch folders (mounts included) in a folder of its own name,
and its control groups under that name (see `cgroups`).

A slot whose lock is free belongs to no running process. Whoever claims the instance of a work
folder first removes what every such slot left: the processes started from its folders (a tmux
server outlives a `kill -9` of the app), its control groups with everything in them, its mounts
and folders. A running instance holds its lock, so its sandboxes are never touched.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import signal
import stat
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from backend.envs.live import cgroups
from backend.envs.live.host import HOST_PATH, require
from backend.envs.live.procs import cmdline, processes
from backend.errors import LiveEnvironmentError

FALLBACK_ROOT = Path("/run/awp-live")
SLOTS = 64


@dataclass(frozen=True)
class Instance:
    """This process's instance of one work folder.

    Attributes:
        name: `<data id>-<slot>`, the name of its folder and its control groups.
        folder: where its sandboxes' scratch folders live.
    """

    name: str
    folder: Path


_claimed: dict[Path, Instance] = {}
_lock = threading.Lock()


def reachable(path: Path) -> bool:
    """True when a uid that owns nothing on the host can reach `path` (every folder is o+x)."""
    try:
        return all(os.stat(p).st_mode & stat.S_IXOTH for p in (path, *path.parents))
    except OSError:
        return False


def run_host(argv: list[str]) -> None:
    """Run a host helper (mount, umount) with a clean environment.

    Raises:
        LiveEnvironmentError: it failed (with its message).
    """
    done = subprocess.run(argv, capture_output=True, text=True, env={"PATH": HOST_PATH})
    if done.returncode != 0:
        raise LiveEnvironmentError(f"{' '.join(argv[:3])} failed: {done.stderr.strip()}")


def _mounted(folder: Path) -> bool:
    return os.path.ismount(folder) or any(os.path.ismount(p) for p in folder.glob("ro/*"))


def remove_folder(folder: Path) -> None:
    """Unmount everything under `folder` and delete it (a crashed session's leftovers too)."""
    if not folder.exists():
        return
    if _mounted(folder):
        for _ in range(20):  # a process that just died may still hold the mount for a moment
            done = subprocess.run(
                [require("umount"), "--recursive", str(folder)],
                capture_output=True,
                env={"PATH": HOST_PATH},
            )
            if done.returncode == 0 or not os.path.ismount(folder):
                break
            time.sleep(0.05)
        else:
            run_host([require("umount"), "--recursive", "--lazy", str(folder)])
    if _mounted(folder):
        raise LiveEnvironmentError(f"{folder} is still mounted; it was left in place.")
    shutil.rmtree(folder, ignore_errors=True)


def session_root(work_dir: Path) -> Path:
    """Where the instances' folders live: `work_dir/sandboxes`, or /run/awp-live.

    As root, /run/awp-live when no sandbox uid can reach the work folder: a data directory under
    /root cannot be bound.
    """
    work_dir.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        root = work_dir / "sandboxes"
        root.mkdir(exist_ok=True)
        return root
    root = work_dir / "sandboxes" if reachable(work_dir) else FALLBACK_ROOT
    root.mkdir(mode=0o711, exist_ok=True)
    info = os.lstat(root)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0:
        raise LiveEnvironmentError(f"{root} must be a folder owned by root; remove it.")
    os.chmod(root, 0o711)
    return root


def _data_id(work_dir: Path) -> str:
    path = work_dir / "instance-id"
    with contextlib.suppress(FileExistsError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, "w") as file:
            file.write(secrets.token_hex(4))
    return path.read_text().strip()


def claim(work_dir: Path) -> Instance:
    """This process's instance of `work_dir`, claimed on first call (see the module docstring).

    Raises:
        LiveEnvironmentError: every slot is held by a running process.
    """
    key = work_dir.resolve()
    with _lock:
        if key in _claimed:
            return _claimed[key]
        root = session_root(work_dir)
        data_id = _data_id(work_dir)
        slots = work_dir / "instances"
        slots.mkdir(exist_ok=True)
        mine: Instance | None = None
        for slot in range(SLOTS):
            lock = slots / f"{slot}.lock"
            if mine is not None and not lock.exists():
                continue  # never used: nothing to clean
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            instance = Instance(f"{data_id}-{slot}", root / f"{data_id}-{slot}")
            remove_instance(instance)
            if mine is None:
                mine = instance  # the lock stays held (fd kept open) while this process runs
            else:
                os.close(fd)
        if mine is None:
            raise LiveEnvironmentError(
                f"{SLOTS} processes already run live environments on {work_dir}: stop one."
            )
        mine.folder.mkdir(mode=0o711)
        _claimed[key] = mine
        return mine


def remove_instance(instance: Instance) -> None:
    """Remove what a stopped instance left: processes, control groups, mounts, folders."""
    marker = f"{instance.folder}/"
    found = [p.pid for p in processes() if any(marker in arg for arg in cmdline(p.pid))]
    for pid in found:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    cgroups.remove_instance(instance.name)
    if instance.folder.is_dir():
        for child in instance.folder.iterdir():
            remove_folder(child)
        instance.folder.rmdir()


def sandboxes_left(work_dir: Path) -> list[Path]:
    """The scratch folders of `work_dir`'s instances still on disk: empty once all are closed.

    The instance records (`instance-id`, the slot locks, each instance's own folder) stay for
    the process's lifetime by design; a sandbox's folder must not.
    """
    root = work_dir / "sandboxes"
    if os.geteuid() == 0 and not root.is_dir():
        root = FALLBACK_ROOT
    data_id = work_dir / "instance-id"
    if not root.is_dir() or not data_id.is_file():
        return []
    prefix = f"{data_id.read_text().strip()}-"
    mine = [folder for folder in root.iterdir() if folder.name.startswith(prefix)]
    return sorted(child for folder in mine if folder.is_dir() for child in folder.iterdir())
