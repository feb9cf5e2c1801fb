"""The scratch space of one sandbox: its host uid and a bounded folder for everything it writes.

As root (see `host`), a `Scratch` holds a uid from the pool and mounts a size-limited tmpfs on
its folder, so the disk use of the whole session is bounded, not only single files; without root
the folder is plain. The folder holds the sandbox's home, our own passwd/group/hosts/bashrc that
are bound over /etc inside, and read-only views of host folders the uid could not reach itself
(a Python under /root): bwrap, running as the uid, can only bind what the uid can reach.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Self

from backend.envs.live import cgroups
from backend.envs.live.base import LiveConfig
from backend.envs.live.host import Privilege, host_mode, missing_sandbox, require
from backend.envs.live.instance import claim, reachable, remove_folder, run_host
from backend.envs.live.procs import cmdline, processes, stop_trees, stop_uid, thread_count
from backend.envs.live.uids import UidLease, lease_uid
from backend.errors import LiveEnvironmentError

HOME = "/home/user"
USER = "user"
INNER_ID = 1000  # the uid and gid the sandboxed programs see
HOSTNAME = "sandbox"
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
        self.group: cgroups.Group | None = None

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
            instance = claim(self.config.work_dir)
            if self.mode is Privilege.ROOT:
                self._open_root(instance.name, instance.folder)
            else:
                self.folder = Path(tempfile.mkdtemp(prefix="sandbox-", dir=instance.folder))
                # Without root the limit counts the app's own threads too. Fixed once: a
                # program of the sandbox may lower it further but never raise it again.
                self._nproc = thread_count(self.uid) + self.config.processes
            self._populate()
        except BaseException:
            self.close()
            raise
        return self

    def _open_root(self, instance: str, root: Path) -> None:
        def reclaim(uid: int) -> None:
            remove_folder(root / f"sandbox-{uid}")
            if cgroups.enabled():
                cgroups.Group(instance, f"sandbox-{uid}").remove()

        config = self.config
        self._lease = lease_uid(config.uid_base, config.uid_count, reclaim)
        self.uid = self._lease.uid
        self.folder = root / f"sandbox-{self.uid}"
        self.folder.mkdir(mode=0o700)
        options = f"size={config.disk_mb}m,mode=0710,uid=0,gid={self.uid},nosuid,nodev"
        run_host([require("mount"), "-t", "tmpfs", "-o", options, "awp-live", str(self.folder)])
        if cgroups.active(config.cgroups):
            self.group = cgroups.Group(instance, f"sandbox-{self.uid}")
            # Its tmpfs files are charged to the sandbox's memory too: the limit holds both.
            self.group.create(config.memory_mb + config.disk_mb, config.cpu_share, config.processes)

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
        """The host path bwrap binds for `path`: itself, or a bind of it the uid can reach.

        Raises:
            LiveEnvironmentError: without root, the app's own uid cannot read `path` (bwrap,
                running as that uid, would fail with a bare "Permission denied").
        """
        if self.mode is not Privilege.ROOT:
            if not os.access(path, os.R_OK | os.X_OK):
                raise LiveEnvironmentError(
                    f"The sandbox cannot show {path} read-only: this app's user (uid {self.uid}) "
                    "cannot read it, and without root nothing else can. Run the app with a "
                    "Python its own user can read."
                )
            return path
        if reachable(path):
            return path
        staging.mkdir(parents=True, mode=0o755)
        run_host([require("mount"), "--bind", "-o", "ro", str(path), str(staging)])
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

    def enter(self) -> list[str]:
        """The prefix that puts a program started by this process into the sandbox's group."""
        return self.group.enter() if self.group is not None else []

    def pause(self) -> None:
        """Freeze every process until `resume` (between actions); nothing without cgroups."""
        if self.group is not None:
            self.group.freeze()

    def resume(self) -> None:
        """Let the sandbox's processes run again."""
        if self.group is not None:
            self.group.thaw()

    @property
    def paused(self) -> bool:
        """True while the sandbox is frozen."""
        return self.group is not None and self.group.frozen

    def spent(self) -> bool:
        """True once the whole sandbox used more CPU time than its budget."""
        if self.group is None:
            return False
        return self.group.usage().cpu_s > self.config.sandbox_cpu_seconds

    def stop(self, keep: Sequence[int] = ()) -> None:
        """Stop the sandbox's processes but `keep`, leaving the folder (and uid) in place."""
        if self.folder is None:
            return
        self.resume()  # a frozen process dies only once it runs again
        marker = str(self.folder)
        mine = [p.pid for p in processes(self.uid) if any(marker in a for a in cmdline(p.pid))]
        stop_trees([pid for pid in mine if pid not in keep])
        if self.mode is Privilege.ROOT:
            stop_uid(self.uid, keep=keep)
        if self.group is not None and not keep:
            self.group.kill()  # anything that left the uid's view (none should) goes too

    def close(self) -> None:
        """Stop every process, unmount and delete the scratch folder, give the uid back."""
        if self.folder is not None:
            self.stop()
            remove_folder(self.folder)
            self.folder = None
        if self.group is not None:
            self.group.remove()
            self.group = None
        self._views.clear()
        if self._lease is not None:
            self._lease.release()
            self._lease = None
