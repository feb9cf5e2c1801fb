"""A live terminal started by a real unprivileged user, where the cgroup tree is not writable.

As root the app gives each sandbox a uid of its own and a cgroup; an unprivileged Space has
neither. Here the real `awp record` runs as `nobody` (setpriv drops root before Python starts):
bubblewrap then sandboxes through an unprivileged user namespace, the `auto` setting finds the
cgroup tree not writable, and the one sentence says that only the per-process limits hold.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from backend.envs.live.host import program
from backend.envs.live.instance import reachable
from backend.envs.live.runtime import python_runtime

NOBODY = 65534
REPO = Path(__file__).resolve().parents[2]
SITE = Path(sysconfig.get_paths()["purelib"])
# The interpreter gets the venv's packages and this checkout however it was found.
BOOT = (
    "import runpy, site, sys; site.addsitedir(sys.argv.pop(1)); "
    "sys.path.insert(0, sys.argv.pop(1)); sys.argv[0] = 'awp'; "
    "runpy.run_module('app', run_name='__main__')"
)
ACTIONS = [
    [{"keystrokes": "echo inner-$(id -u)\n", "duration": 0.5}],
    [{"keystrokes": "echo groups-$(grep -c awp-live /proc/self/cgroup)\n", "duration": 0.5}],
]
Awp = Callable[..., subprocess.CompletedProcess[str]]


def _drop() -> list[str]:
    setpriv = program("setpriv")
    assert setpriv is not None
    return [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def _interpreter() -> str | None:
    """A Python that `nobody` can run: this one where its folders are reachable, else the
    system's of the same version (the venv's packages are pure Python or built for it)."""
    if all(reachable(path) for path in python_runtime()):
        return sys.executable
    system = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
    return str(system) if system.exists() else None


def _why_not() -> str:
    """Why this machine cannot run the test ("" when it can)."""
    if os.geteuid() != 0:
        return "starting as an unprivileged user needs root to drop from"
    if program("setpriv") is None or program("bwrap") is None:
        return "setpriv or bwrap is not installed"
    try:
        pwd.getpwuid(NOBODY)
    except KeyError:
        return f"no user with uid {NOBODY} (nobody)"
    bwrap = [str(program("bwrap")), "--unshare-all", "--unshare-user", "--disable-userns"]
    probe = subprocess.run(
        [*_drop(), *bwrap, "--ro-bind", "/", "/", "--", "true"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    if probe.returncode != 0:
        return f"bwrap cannot create a user namespace unprivileged here: {probe.stderr.strip()}"
    if _interpreter() is None:
        return "no Python here that an unprivileged user can run"
    if not (reachable(SITE) and reachable(REPO)):
        return f"{SITE} or {REPO} cannot be reached by an unprivileged user"
    return ""


pytestmark = pytest.mark.skipif(bool(_why_not()), reason=_why_not() or "runs")


@pytest.fixture
def home() -> Iterator[Path]:
    """A folder `nobody` owns (pytest's own temporary folders are root's, mode 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="awp-nobody-", dir="/tmp"))
    os.chown(folder, NOBODY, NOBODY)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def awp(home: Path, *args: str, python: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run `awp ARGS` as `nobody` with a fresh data folder in `home`."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "AWP_DATA_DIR": str(home / "data")}
    argv = [*_drop(), python or str(_interpreter()), "-c", BOOT, str(SITE), str(REPO), *args]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300, cwd=home)


def test_a_live_terminal_runs_unprivileged_and_says_only_per_process_limits_hold(
    home: Path,
) -> None:
    actions = home / "actions.json"
    actions.write_text(json.dumps(ACTIONS), encoding="utf-8")
    rows = home / "rows.jsonl"
    done = awp(
        home, "record", "--domain", "terminal", "--actions", str(actions), "--out", str(rows)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # "auto" found the cgroup tree closed to this user, and says what still bounds a sandbox.
    said = done.stderr
    assert "Limits hold per process only (no cgroups: the app runs as uid 65534, not root; " in said
    assert "the cgroup tree at /sys/fs/cgroup/" in said and "is not writable (Permission" in said
    assert (
        "each process gets 1024 MB of address space and 60 CPU seconds, files of at most 64 MB"
        in said
    )
    assert "have no memory or CPU limit, and background work runs between actions" in said
    # The steps ran in the sandbox, as its inner user, in no group of the app's.
    screen = json.loads(rows.read_text(encoding="utf-8").splitlines()[-1])["response"][-1]
    assert "inner-1000" in screen and "groups-0" in screen


def test_an_unreachable_python_is_refused_with_what_to_do(home: Path) -> None:
    if all(reachable(path) for path in python_runtime()):
        pytest.skip("this Python is reachable by an unprivileged user: nothing to refuse")
    actions = home / "actions.json"
    actions.write_text(json.dumps(ACTIONS[:1]), encoding="utf-8")
    rows = home / "rows.jsonl"
    args = ["record", "--domain", "terminal", "--actions", str(actions), "--out", str(rows)]
    try:
        done = awp(home, *args, python=sys.executable)
    except PermissionError:
        pytest.skip(f"{sys.executable} cannot even start as an unprivileged user here")
    said = done.stdout + done.stderr
    if "Permission denied" in said and "sandbox" not in said:
        pytest.skip(f"{sys.executable} cannot even start as an unprivileged user here")
    assert done.returncode != 0 and "Traceback" not in said
    unreachable = [path for path in python_runtime() if not reachable(path)]
    assert any(f"The sandbox cannot show {path} read-only" in said for path in unreachable), said
    assert "Run the app with a Python its own user can read." in said
