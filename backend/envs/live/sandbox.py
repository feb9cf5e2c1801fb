"""The sandbox every live environment runs its programs in: one uid, one bounded scratch folder.

A `Sandbox` owns, for one live session: a host uid from the pool (root mode, see `host`), a
scratch folder on a size-limited tmpfs (the sandbox's home and anything else the environment
keeps there), and the command prefix that runs a program inside:

    sh (enter the sandbox's cgroup, see `cgroups`)  ->  prlimit (per-process limits, set while
    still root)  ->  setpriv (drop to the uid: no groups, no capabilities, no-new-privs)  ->
    bwrap (all namespaces new, no network, read-only system)

Inside, the program sees `/usr`, `/etc` (with our own passwd, group, hosts and bashrc) and this
app's Python read-only, `/usr/local` hidden, private `/dev` and `/proc`, and three folders of the
scratch space: its home `/home/user`, `/tmp` and `/dev/shm` (they count against the session's
tmpfs and persist from one call to the next, as in a container). Then `/` and `/dev` are
remounted read-only: bwrap's own are writable, unbounded tmpfs otherwise. The host's environment
variables never reach it. The program is the first process of its pid namespace (`--as-pid-1`):
bwrap's own reaper would report the exit and leave itself an orphan for the host's PID 1 to reap;
without it, bwrap waits for the program and is reaped by whoever started it. `close` stops every
process, unmounts and removes the scratch folder; it is safe to call twice.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from backend.envs.live.base import LiveConfig
from backend.envs.live.host import HOST_PATH, Privilege, require
from backend.envs.live.procs import stop_trees
from backend.envs.live.runtime import python_bin, python_runtime
from backend.envs.live.scratch import ETC, HOME, HOSTNAME, INNER_ID, USER, Scratch
from backend.errors import LiveEnvironmentError

__all__ = ["HOME", "RunResult", "Sandbox"]

OUTPUT_LIMIT = 256 * 1024  # bytes of a one-shot command's output kept; the rest is drained
MIB = 1024 * 1024
_NOFILE = 1024


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


class Sandbox(Scratch):
    """A scratch space plus the command prefix that runs programs in it (see the module docstring).

    Args:
        config: limits and the work folder.
        read_only: extra host folders shown read-only at their own path (npm servers); this
            app's Python always is.
    """

    def __init__(self, config: LiveConfig, read_only: Sequence[Path] = ()) -> None:
        super().__init__(config, (*python_runtime(), *read_only))

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
        read_only: Mapping[Path, str] | None = None,
        tty: bool = False,
    ) -> list[str]:
        """The `bwrap` command line that runs `argv` inside (see the module docstring).

        Args:
            argv: the program and its arguments, as seen inside.
            cwd: working folder inside.
            env: variables added to the sandbox's own minimal environment.
            binds: extra writable host folders (under the scratch folder) and where they appear.
            read_only: extra host folders shown read-only, and where (a task's hidden tests).
            tty: the program gets the caller's terminal (tmux); otherwise a new session, so it
                cannot push keys into a terminal it inherited.
        """
        folder = self._require_folder()
        self._refuse_shadowing([*(binds or {}).values(), *(read_only or {}).values()])
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
        args += ["--as-pid-1", "--die-with-parent", "--clearenv"]
        args += [] if tty else ["--new-session"]
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
        for name in ETC:
            args += ["--ro-bind", str(folder / "etc" / name), f"/etc/{name}"]
        args += ["--dev", "/dev", "--proc", "/proc"]
        args += ["--bind", str(self.home), HOME, "--bind", str(folder / "tmp"), "/tmp"]
        args += ["--bind", str(folder / "shm"), "/dev/shm"]
        for path, view in self._views.items():
            args += ["--ro-bind", str(view), str(path)]
        for source, target in (binds or {}).items():
            args += ["--bind", str(source), target]
        for source, target in (read_only or {}).items():
            args += ["--ro-bind", str(source), target]
        args += ["--chdir", cwd, "--remount-ro", "/", "--remount-ro", "/dev", "--", *argv]
        return args

    def _refuse_shadowing(self, targets: Sequence[str]) -> None:
        """Refuse a bind whose target holds a folder the sandbox needs (the app's Python).

        bwrap mounts in order, so a later bind at `/check` hides an interpreter bound earlier at
        `/check/work/.venv`; the program would fail with "execvp: No such file or directory".

        Raises:
            LiveEnvironmentError: a target is, or holds, one of the sandbox's read-only views.
        """
        for target in map(Path, targets):
            hidden = [view for view in self._views if view == target or target in view.parents]
            if hidden:
                raise LiveEnvironmentError(
                    f"Cannot show a folder at {target}: it would hide {hidden[0]}, which the "
                    "sandbox needs. Move the app's Python elsewhere or pick another target."
                )

    def command(
        self,
        argv: Sequence[str],
        *,
        cwd: str = HOME,
        env: Mapping[str, str] | None = None,
        binds: Mapping[Path, str] | None = None,
        read_only: Mapping[Path, str] | None = None,
        address_space_mb: int = 0,
    ) -> list[str]:
        """The full prefix (cgroup, limits, drop, bwrap) for a program started by this process."""
        inner = self.bwrap(argv, cwd=cwd, env=env, binds=binds, read_only=read_only)
        limits = self.limits(address_space_mb=address_space_mb)
        return [*self.enter(), *limits, *self.drop(), *inner]

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float,
        stdin: bytes | None = None,
        cwd: str = HOME,
        env: Mapping[str, str] | None = None,
        binds: Mapping[Path, str] | None = None,
        read_only: Mapping[Path, str] | None = None,
    ) -> RunResult:
        """Run one program inside to completion or to its time limit (then exit code 124)."""
        started = time.monotonic()
        argv = self.command(argv, cwd=cwd, env=env, binds=binds, read_only=read_only)
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
