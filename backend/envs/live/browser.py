"""A headless Debian Chromium for live environments: sandboxed, offline, driven on its own thread.

Playwright's sync API belongs to the thread that started it, while the app serves one session's
requests from whichever worker thread is free; so every Playwright call of one browser runs on a
private thread of its own (`SandboxedChromium.run`), whoever asks.

Isolation, outermost first:
1. bubblewrap: fresh namespaces (no network at all, its own process ids), a read-only root that
   shows only /usr, the font configuration and the folders the caller names (read-only), and
   size-limited tmpfs for /tmp and /dev/shm. The project tree, the data folder and host files such
   as /etc/hostname do not exist in there.
2. Run as root, the launcher first drops to `nobody` (no groups, no capabilities, no new
   privileges), because root inside bubblewrap is still the host's root. Unprivileged, Chromium's
   own sandbox (namespaces and seccomp) works, so it runs without `--no-sandbox`.
3. A route allow-list on every browser context (`allow_only`): only URLs under one prefix load.
4. Where cgroups hold (see `cgroups`), the whole browser, every renderer and worker included, is
   one group with a memory limit, a CPU quota and a task limit, frozen between calls: a page
   cannot keep burning CPU (Web Workers) after the step that loaded it.

Playwright launches the real binary, not Debian's `/usr/bin/chromium` launcher script: that script
exports Google API keys and loads extensions we do not want, and would need a shell in the sandbox.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shlex
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any, TypeVar

from backend.envs.live import cgroups
from backend.envs.live.instance import claim
from backend.errors import LiveEnvironmentError

CHROMIUM = Path("/usr/lib/chromium/chromium")
BWRAP = Path("/usr/bin/bwrap")
SETPRIV = Path("/usr/bin/setpriv")
NOBODY = 65534
FLAGS = (
    # BrowserGym's own: scrollbars take room on the page, as in the recorded data.
    "--disable-features=OverlayScrollbars,ExtendedOverlayScrollbars",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
"""Beyond Playwright's defaults; without the network flags Chromium keeps trying to reach Google."""

BROWSER_TASKS = 512
"""Tasks (threads) of one browser: Chromium with one page runs about 60 (measured)."""

T = TypeVar("T")


def browser_missing() -> str:
    """What this machine lacks to run the sandboxed browser ("" when nothing); starts nothing."""
    needs = [(CHROMIUM, "chromium"), (BWRAP, "bubblewrap")]
    if os.geteuid() == 0:
        needs.append((SETPRIV, "util-linux"))
    absent = [package for path, package in needs if not os.access(path, os.X_OK)]
    return f"apt-get install {' '.join(absent)}" if absent else ""


def hidden_from_sandbox(folder: Path) -> bool:
    """True when the sandbox's user could not read `folder` (run as root, it is `nobody`).

    Checks the "others" permission bits of the folder and of every folder above it.
    """
    if os.geteuid() != 0:
        return False
    chain = [folder, *folder.parents]
    return any(not path.stat().st_mode & stat.S_IXOTH for path in chain) or not (
        folder.stat().st_mode & stat.S_IROTH
    )


@functools.cache
def chromium_version() -> str:
    """The browser's version, read from the binary (launches no browser)."""
    done = subprocess.run(
        [str(CHROMIUM), "--version"], capture_output=True, text=True, timeout=30, check=False
    )
    return done.stdout.strip() or "Chromium (version unknown)"


def _launcher(
    scratch: Path, readable: Sequence[Path], tmp_mb: int, group: cgroups.Group | None
) -> Path:
    """Write the executable Playwright starts: it records its pid, then execs the sandbox.

    It enters the browser's cgroup first, while still root. `exec` keeps the pid, so the recorded
    pid is the outer bubblewrap; killing it ends the whole sandbox (`--die-with-parent` takes the
    inner one along).
    """
    size = str(tmp_mb * 1024 * 1024)
    drop = []
    if os.geteuid() == 0:
        drop = [str(SETPRIV), f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        drop += ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
    sandbox = [str(BWRAP), "--unshare-all", "--die-with-parent", "--new-session", "--clearenv"]
    sandbox += ["--setenv", "HOME", "/tmp", "--setenv", "PATH", "/usr/bin"]
    sandbox += ["--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib"]
    sandbox += ["--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin"]
    for shared in ("/etc/fonts", "/etc/ld.so.cache", "/var/cache/fontconfig"):
        if Path(shared).exists():
            sandbox += ["--ro-bind", shared, shared]
    sandbox += ["--dev", "/dev", "--proc", "/proc"]
    sandbox += ["--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", "/dev/shm"]
    for folder in readable:
        sandbox += ["--ro-bind", str(folder), str(folder)]
    sandbox += ["--remount-ro", "/", str(CHROMIUM)]
    script = scratch / "chromium"
    pid_file = shlex.quote(str(scratch / "pid"))
    enter = "".join(f"echo $$ > {shlex.quote(str(f))}\n" for f in group.procs()) if group else ""
    command = " ".join(shlex.quote(part) for part in drop + sandbox)
    script.write_text(
        f'#!/bin/sh\necho $$ > {pid_file}\n{enter}exec {command} "$@"\n', encoding="utf-8"
    )
    script.chmod(0o700)
    return script


def allow_only(context: Any, prefix: str) -> None:
    """Let only URLs under `prefix` load in `context`; refuse everything else.

    A refused top-level navigation is answered with an empty 204, which Chromium treats as "stay
    where you are": the page, and the task running in it, are left exactly as they were, and the
    action fails with `net::ERR_ABORTED`. Other refused requests are aborted.
    """

    def route(handle: Any) -> None:
        request = handle.request
        if request.url.startswith(prefix):
            handle.continue_()
        elif request.is_navigation_request() and request.frame.parent_frame is None:
            handle.fulfill(status=204)
        else:
            handle.abort("blockedbyclient")

    context.route("**/*", route)


class SandboxedChromium:
    """One Playwright driver and one sandboxed Chromium, used only from a private thread.

    Args:
        work_dir: folder under which the launcher's scratch folder is made.
        readable: host folders the browser may read (the task pages), bound read-only.
        tmp_mb: size of the browser's /tmp and /dev/shm.
        timeout_s: longest one `run` may take; after it the browser is killed.
        memory_mb: memory of the whole browser (cgroups only; its /tmp and /dev/shm on top).
        cpu_share: CPU cores the whole browser may use at once (cgroups only).
        tasks: tasks (threads) of the whole browser (cgroups only).
        use_cgroups: give the browser its own control group where the machine allows it.
    """

    def __init__(
        self,
        work_dir: Path,
        readable: Sequence[Path],
        tmp_mb: int,
        timeout_s: float,
        *,
        memory_mb: int = 1024,
        cpu_share: float = 1.0,
        tasks: int = BROWSER_TASKS,
        use_cgroups: bool = True,
    ) -> None:
        self._readable = list(readable)
        self._tmp_mb = tmp_mb
        self._timeout_s = timeout_s
        instance = claim(work_dir)
        self._scratch = Path(tempfile.mkdtemp(prefix="web-", dir=instance.folder))
        self._group: cgroups.Group | None = None
        if cgroups.active(use_cgroups):
            self._group = cgroups.Group(instance.name, self._scratch.name)
            self._group.create(memory_mb + 2 * tmp_mb, cpu_share, tasks)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="live-web")
        self._playwright: Any = None
        self._browser: Any = None
        self._dead = ""

    def usage(self) -> cgroups.Usage | None:
        """What the whole browser used so far (None without cgroups)."""
        return self._group.usage() if self._group is not None else None

    @property
    def alive(self) -> bool:
        """False once closed or killed: such an object refuses every further `run`."""
        return not self._dead

    def run(self, job: Callable[[Any], T], timeout_s: float | None = None) -> T:
        """Run `job(browser)` on the browser's thread, launching the browser on first use.

        `timeout_s` (default: the object's) bounds the call; starting a browser and a task page
        takes seconds, an action far less.

        Raises:
            LiveEnvironmentError: the browser could not start or failed, or `job` overran the time
                limit (the browser is then killed and this object is unusable).
        """
        if self._dead:
            raise LiveEnvironmentError(self._dead)
        if self._group is not None:
            self._group.thaw()
        future = self._thread.submit(lambda: job(self._ensure_browser()))
        limit = self._timeout_s if timeout_s is None else timeout_s
        try:
            result = future.result(timeout=limit)
            if self._group is not None:
                self._group.freeze()  # until the next call: no page runs in between
            return result
        except LiveEnvironmentError:
            raise
        except FutureTimeout:
            self._dead = (
                f"The browser did not answer within {limit:g} s and was stopped; "
                "start the environment again."
            )
            self._kill()
            raise LiveEnvironmentError(self._dead) from None
        except Exception as error:  # the browser or the page broke: one message at the edge
            first = (str(error).splitlines() or [""])[0]
            message = f"The browser failed: {type(error).__name__}: {first}"
            raise LiveEnvironmentError(message) from error

    def _ensure_browser(self) -> Any:
        if self._browser is None:
            from browsergym.core.constants import BROWSERGYM_ID_ATTRIBUTE
            from playwright.sync_api import Error, sync_playwright

            self._playwright = sync_playwright().start()
            # BrowserGym finds elements with get_by_test_id: its ids live in the `bid` attribute.
            self._playwright.selectors.set_test_id_attribute(BROWSERGYM_ID_ATTRIBUTE)
            launcher = _launcher(self._scratch, self._readable, self._tmp_mb, self._group)
            try:
                self._browser = self._playwright.chromium.launch(
                    executable_path=str(launcher),
                    headless=True,
                    chromium_sandbox=True,
                    args=list(FLAGS),
                    ignore_default_args=["--hide-scrollbars"],
                )
            except Error as error:
                lines = str(error).splitlines()
                said = [line.split("[err] ", 1)[1] for line in lines if "[err] " in line]
                reason = "; ".join(list(dict.fromkeys(said))[:3]) or lines[0]
                raise LiveEnvironmentError(
                    f"Chromium did not start in its sandbox: {reason}"
                ) from None
        return self._browser

    def close(self) -> None:
        """Close the browser and the driver, kill whatever is left, remove the scratch folder."""
        if self._group is not None:
            self._group.thaw()
        if self._playwright is not None:
            with contextlib.suppress(Exception):
                self._thread.submit(self._shutdown).result(timeout=self._timeout_s)
        self._kill()
        if self._group is not None:
            self._group.remove()
        self._thread.shutdown(wait=False)
        shutil.rmtree(self._scratch, ignore_errors=True)
        self._dead = self._dead or "The environment is closed; start it again."

    def _shutdown(self) -> None:
        try:
            if self._browser is not None:
                self._browser.close()
        finally:
            self._browser = None
            self._playwright.stop()
            self._playwright = None

    def _sandbox_pid(self) -> int | None:
        """The pid of the running sandbox, or None; a pid reused by another program is not ours."""
        try:
            pid = int((self._scratch / "pid").read_text(encoding="utf-8"))
            argv0 = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
        except (OSError, ValueError):
            return None
        return pid if argv0 == str(BWRAP).encode() else None

    def _kill(self) -> None:
        """SIGKILL the sandbox if it still runs, and wait until it is gone (at most 5 s)."""
        if self._group is not None:
            self._group.kill()
        pid = self._sandbox_pid()
        if pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while self._sandbox_pid() is not None and time.monotonic() < deadline:
            time.sleep(0.05)
