"""The sandbox every live environment runs its programs in: one uid, one bounded scratch folder.

A `Sandbox` owns, for one live session: a host uid from the pool (root mode, see `host`), a
scratch folder on a size-limited tmpfs (the sandbox's home and anything else the environment
keeps there), and the command prefix that runs a program inside:

    prlimit (limits, set while still root)  ->  setpriv (drop to the uid: no groups, no
    capabilities, no-new-privs)  ->  bwrap (all namespaces new, no network, read-only system)

Inside, the program sees `/usr`, `/etc` (with our own passwd, group, hosts and bashrc) and this
app's Python read-only, `/usr/local` hidden, private `/dev`, `/proc`, sized `/tmp` and `/dev/shm`,
and its home `/home/user`; then `/` and `/dev` are remounted read-only, since bwrap's own are
writable, unbounded tmpfs otherwise. The host's environment variables never reach it. `close`
stops every process, unmounts and removes the scratch folder; it is safe to call twice.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from backend.envs.live.base import LiveConfig
from backend.envs.live.host import HOST_PATH, Privilege, host_mode, missing_sandbox, require
from backend.envs.live.procs import cmdline, processes, stop_trees, stop_uid, thread_count
from backend.envs.live.runtime import python_bin, python_runtime
from backend.envs.live.uids import UidLease, lease_uid
from backend.errors import LiveEnvironmentError

HOME = "/home/user"
USER = "user"
INNER_ID = 1000  # the uid and gid the sandboxed programs see
HOSTNAME = "sandbox"
OUTPUT_LIMIT = 256 * 1024  # bytes of a one-shot command's output kept; the rest is drained
FALLBACK_ROOT = Path("/run/awp-live")
MIB = 1024 * 1024
_NOFILE = 1024
_ETC = {
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


@dataclass(frozen=True)
class RunResult:
    """What one sandboxed command did.

    Attributes:
        output: stdout and stderr interleaved, as a terminal would show them (decoded UTF-8).
        exit_code: the exit status; 124 when the command ran out of time, as `timeout` says.
        timed_out: the command was stopped at its time limit.
        truncated: output beyond OUTPUT_LIMIT bytes was dropped.
        elapsed_s: wall-clock seconds.
    """

    output: str
    exit_code: int
    timed_out: bool
    truncated: bool
    elapsed_s: float


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


def _remove_folder(folder: Path) -> None:
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


def _session_root(work_dir: Path) -> Path:
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


class Sandbox:
    """One live session's uid, scratch folder and command prefix (see the module docstring).

    Args:
        config: limits and the work folder.
        read_only: extra host folders shown read-only at their own path (npm servers).
    """

    def __init__(self, config: LiveConfig, read_only: Sequence[Path] = ()) -> None:
        self.config = config
        self.read_only = (*python_runtime(), *read_only)
        self.mode = host_mode().privilege
        self.uid = os.getuid()
        self.folder: Path | None = None
        self._lease: UidLease | None = None
        self._views: dict[Path, Path] = {}
        self._nproc = config.processes

    # -- life cycle ---------------------------------------------------------------------------

    def open(self) -> Sandbox:
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
        root = _session_root(self.config.work_dir)
        self._lease = lease_uid(
            root / ".locks",
            self.config.uid_base,
            self.config.uid_count,
            lambda uid: _remove_folder(root / f"sandbox-{uid}"),
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
        for name, text in _ETC.items():
            (etc / name).write_text(text)
        (folder / "empty").mkdir(mode=0o755)
        self.private_dir("home")
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
            _remove_folder(self.folder)
            self.folder = None
        self._views.clear()
        if self._lease is not None:
            self._lease.release()
            self._lease = None

    # -- commands -----------------------------------------------------------------------------

    def limits(self, cpu: bool = True, address_space_mb: int = 0) -> list[str]:
        """The `prlimit` prefix: processes, address space, file size, core dumps, files, CPU.

        Args:
            cpu: limit CPU time (not for the tmux server, which lives as long as the session).
            address_space_mb: a larger address space for a program that reserves much more
                than it uses (node reserves about 1 GiB at start; its heap is capped instead).
        """
        config = self.config
        argv = [
            require("prlimit"),
            f"--nproc={self._nproc}",
            f"--as={max(config.memory_mb, address_space_mb) * MIB}",
            f"--fsize={config.file_mb * MIB}",
            f"--nofile={_NOFILE}",
            "--core=0",
        ]
        if cpu:
            argv.append(f"--cpu={config.cpu_seconds}")
        return [*argv, "--"]

    def drop(self) -> list[str]:
        """The `setpriv` prefix that becomes the sandbox uid (nothing without root)."""
        if self.mode is not Privilege.ROOT:
            return []
        return [
            require("setpriv"),
            f"--reuid={self.uid}",
            f"--regid={self.uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
        ]

    def bwrap(
        self,
        argv: Sequence[str],
        *,
        cwd: str = HOME,
        env: Mapping[str, str] | None = None,
        binds: Mapping[Path, str] | None = None,
        tty: bool = False,
    ) -> list[str]:
        """The `bwrap` command line that runs `argv` inside (see the module docstring).

        Args:
            argv: the program and its arguments, as seen inside.
            cwd: working folder inside.
            env: variables added to the sandbox's own minimal environment.
            binds: extra writable host folders (under the scratch folder) and where they appear.
            tty: the program gets the caller's terminal (tmux); otherwise a new session, so it
                cannot push keys into a terminal it inherited.
        """
        folder = self._require_folder()
        limit_tmp = min(self.config.disk_mb, 512) * MIB
        variables = {
            "HOME": HOME,
            "USER": USER,
            "LOGNAME": USER,
            "SHELL": "/bin/bash",
            "PATH": f"{python_bin()}:/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            **(env or {}),
        }
        args = [require("bwrap"), "--unshare-all", "--unshare-user", "--disable-userns"]
        args += ["--uid", str(INNER_ID), "--gid", str(INNER_ID), "--hostname", HOSTNAME]
        args += ["--die-with-parent", "--clearenv"] + ([] if tty else ["--new-session"])
        for key, value in variables.items():
            args += ["--setenv", key, value]
        args += ["--ro-bind", "/usr", "/usr", "--ro-bind", str(folder / "empty"), "/usr/local"]
        for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
            top = Path("/") / name
            if top.is_symlink():
                args += ["--symlink", os.readlink(top), str(top)]
            elif top.is_dir():
                args += ["--ro-bind", str(top), str(top)]
        args += ["--ro-bind", "/etc", "/etc"]
        for name in _ETC:
            args += ["--ro-bind", str(folder / "etc" / name), f"/etc/{name}"]
        args += ["--dev", "/dev", "--proc", "/proc"]
        args += ["--perms", "1777", "--size", str(limit_tmp), "--tmpfs", "/tmp"]
        args += ["--perms", "1777", "--size", str(64 * MIB), "--tmpfs", "/dev/shm"]
        args += ["--bind", str(self.home), HOME]
        for path, view in self._views.items():
            args += ["--ro-bind", str(view), str(path)]
        for source, target in (binds or {}).items():
            args += ["--bind", str(source), target]
        args += ["--chdir", cwd, "--remount-ro", "/", "--remount-ro", "/dev", "--", *argv]
        return args

    def command(
        self,
        argv: Sequence[str],
        *,
        cwd: str = HOME,
        env: Mapping[str, str] | None = None,
        binds: Mapping[Path, str] | None = None,
        address_space_mb: int = 0,
    ) -> list[str]:
        """The full prefix (limits, drop, bwrap) for a program started by this process."""
        inner = self.bwrap(argv, cwd=cwd, env=env, binds=binds)
        return [*self.limits(address_space_mb=address_space_mb), *self.drop(), *inner]

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float,
        stdin: bytes | None = None,
        cwd: str = HOME,
        env: Mapping[str, str] | None = None,
        binds: Mapping[Path, str] | None = None,
    ) -> RunResult:
        """Run one program inside to completion or to its time limit (then exit code 124)."""
        started = time.monotonic()
        argv = self.command(argv, cwd=cwd, env=env, binds=binds)
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env={"PATH": HOST_PATH},
        )
        kept = bytearray()
        total = [0]

        def read() -> None:
            assert proc.stdout is not None
            while chunk := os.read(proc.stdout.fileno(), 65536):
                total[0] += len(chunk)
                if len(kept) < OUTPUT_LIMIT:
                    kept.extend(chunk[: OUTPUT_LIMIT - len(kept)])

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        if stdin is not None:
            threading.Thread(target=_feed, args=(proc, stdin), daemon=True).start()
        timed_out = False
        try:
            code = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            stop_trees([proc.pid])
            proc.wait()
            code = 124
        reader.join(timeout=5)
        return RunResult(
            output=bytes(kept).decode(errors="replace"),
            exit_code=code,
            timed_out=timed_out,
            truncated=total[0] > OUTPUT_LIMIT,
            elapsed_s=time.monotonic() - started,
        )


def _feed(proc: subprocess.Popen[bytes], data: bytes) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write(data)
        proc.stdin.close()
    except (BrokenPipeError, OSError):
        pass
