"""The scratch space of one sandbox: its host uid and a bounded folder for everything it writes.

As root (see `host`), a `Scratch` holds a uid from the pool and mounts a size-limited tmpfs on
its folder, so the disk use of the whole session is bounded, not only single files; without root
the folder is plain. The folder holds the sandbox's home, our own passwd/group/hosts/bashrc that
are bound over /etc inside, and read-only views of host folders the uid could not reach itself
(a Python under /root): bwrap, running as the uid, can only bind what the uid can reach.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Self

from backend.envs.live.base import LiveConfig
from backend.envs.live.host import HOST_PATH, Privilege, host_mode, missing_sandbox, require
from backend.envs.live.procs import cmdline, processes, stop_trees, stop_uid, thread_count
from backend.envs.live.uids import UidLease, lease_uid
from backend.errors import LiveEnvironmentError

HOME = "/home/user"
USER = "user"
INNER_ID = 1000  # the uid and gid the sandboxed programs see
HOSTNAME = "sandbox"
FALLBACK_ROOT = Path("/run/awp-live")
ETC = {
    "passwd": (
        "root:x:0:0:root:/root:/usr/sbin/nologin\n"
        f"{USER}:x:{INNER_ID}:{INNER_ID}:{USER}:{HOME}:/bin/bash\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
    ),
    "group": f"root:x:0:\n{USER}:x:{INNER_ID}:\nnogroup:x:65534:\n",
    "hostname": f"{HOSTNAME}\n",
    "hosts": f"127.0.0.1\tlocalhost\n127.0.1.1\t{HOSTNAME}\n::1\tlocalhost\n",
    # History stays in memory: the home may be gone when the shell would write it.
    "bash.bashrc": "[ -z \"$PS1\" ] && return\nunset HISTFILE\nPS1='\\u@\\h:\\w\\$ '\n",
}


def reachable(path: Path) -> bool:
    """True when a uid that owns nothing on the host can reach `path` (every folder is o+x)."""
    try:
        return all(os.stat(p).st_mode & stat.S_IXOTH for p in (path, *path.parents))
    except OSError:
        return False


def _run_host(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, env={"PATH": HOST_PATH})
    if done.returncode != 0:
        raise LiveEnvironmentError(f"{' '.join(argv[:3])} failed: {done.stderr.strip()}")


def remove_folder(folder: Path) -> None:
    """Unmount everything under `folder` and delete it (a crashed session's leftovers too)."""
    if not folder.exists():
        return
    if os.path.ismount(folder) or any(os.path.ismount(p) for p in folder.glob("ro/*")):
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
            _run_host([require("umount"), "--recursive", "--lazy", str(folder)])
    if os.path.ismount(folder) or any(os.path.ismount(p) for p in folder.glob("ro/*")):
        raise LiveEnvironmentError(f"{folder} is still mounted; it was left in place.")
    shutil.rmtree(folder, ignore_errors=True)


def session_root(work_dir: Path) -> Path:
    """Where root-mode scratch folders live: `work_dir`, or /run/awp-live if no uid can reach it.

    The sandbox uid must reach its folder to bind it; a data directory under /root cannot be.
    """
    work_dir.mkdir(parents=True, exist_ok=True)
    root = work_dir / "sandboxes" if reachable(work_dir) else FALLBACK_ROOT
    root.mkdir(mode=0o711, exist_ok=True)
    info = os.lstat(root)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0:
        raise LiveEnvironmentError(f"{root} must be a folder owned by root; remove it.")
    os.chmod(root, 0o711)
    return root


class Scratch:
    """One sandbox's uid, scratch folder and processes, from `open` to `close`.

    Args:
        config: limits and the work folder.
        read_only: host folders shown read-only inside at their own path.
    """

    def __init__(self, config: LiveConfig, read_only: Sequence[Path] = ()) -> None:
        self.config = config
        self.read_only = tuple(read_only)
        self.mode = host_mode().privilege
        self.uid = os.getuid()
        self.folder: Path | None = None
        self._lease: UidLease | None = None
        self._views: dict[Path, Path] = {}
        self._nproc = config.processes

    def open(self) -> Self:
        """Take a uid, make the scratch folder and its files.

        Raises:
            LiveEnvironmentError: the machine cannot sandbox (says what is missing), or every
                uid of the pool is busy.
        """
        missing = missing_sandbox()
        if missing:
            raise LiveEnvironmentError(missing[0].upper() + missing[1:] + ".")
        try:
            if self.mode is Privilege.ROOT:
                self._open_root()
            else:
                self.config.work_dir.mkdir(parents=True, exist_ok=True)
                self.folder = Path(tempfile.mkdtemp(prefix="sandbox-", dir=self.config.work_dir))
                # Without root the limit counts the app's own threads too. Fixed once: a
                # program of the sandbox may lower it further but never raise it again.
                self._nproc = thread_count(self.uid) + self.config.processes
            self._populate()
        except BaseException:
            self.close()
            raise
        return self

    def _open_root(self) -> None:
        root = session_root(self.config.work_dir)
        self._lease = lease_uid(
            self.config.uid_base,
            self.config.uid_count,
            lambda uid: remove_folder(root / f"sandbox-{uid}"),
        )
        self.uid = self._lease.uid
        self.folder = root / f"sandbox-{self.uid}"
        self.folder.mkdir(mode=0o700)
        options = f"size={self.config.disk_mb}m,mode=0710,uid=0,gid={self.uid},nosuid,nodev"
        _run_host([require("mount"), "-t", "tmpfs", "-o", options, "awp-live", str(self.folder)])

    def _populate(self) -> None:
        folder = self._require_folder()
        etc = folder / "etc"
        etc.mkdir(mode=0o755)
        for name, text in ETC.items():
            (etc / name).write_text(text)
        (folder / "empty").mkdir(mode=0o755)
        self.private_dir("home")
        for shared in ("tmp", "shm"):
            self.private_dir(shared).chmod(0o1777)
        for index, path in enumerate(self.read_only):
            self._views[path] = self._view(path, folder / "ro" / str(index))

    def _view(self, path: Path, staging: Path) -> Path:
        """The host path bwrap binds for `path`: itself, or a bind of it the uid can reach."""
        if self.mode is not Privilege.ROOT or reachable(path):
            return path
        staging.mkdir(parents=True, mode=0o755)
        _run_host([require("mount"), "--bind", "-o", "ro", str(path), str(staging)])
        return staging

    def _require_folder(self) -> Path:
        if self.folder is None:
            raise LiveEnvironmentError("The sandbox is not open.")
        return self.folder

    def private_dir(self, name: str) -> Path:
        """A folder of the scratch space owned by the sandbox uid (visible inside only if bound)."""
        path = self._require_folder() / name
        path.mkdir(mode=0o700, exist_ok=True)
        os.chown(path, self.uid, self.uid)
        return path

    @property
    def home(self) -> Path:
        """The host path of the sandbox's home folder."""
        return self._require_folder() / "home"

    def stop(self, keep: Sequence[int] = ()) -> None:
        """Stop the sandbox's processes but `keep`, leaving the folder (and uid) in place."""
        if self.folder is None:
            return
        marker = str(self.folder)
        mine = [p.pid for p in processes(self.uid) if any(marker in a for a in cmdline(p.pid))]
        stop_trees([pid for pid in mine if pid not in keep])
        if self.mode is Privilege.ROOT:
            stop_uid(self.uid, keep=keep)

    def close(self) -> None:
        """Stop every process, unmount and delete the scratch folder, give the uid back."""
        if self.folder is not None:
            self.stop()
            remove_folder(self.folder)
            self.folder = None
        self._views.clear()
        if self._lease is not None:
            self._lease.release()
            self._lease = None
