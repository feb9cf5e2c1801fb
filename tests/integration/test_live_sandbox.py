"""The sandbox layer itself: what the machine lacks, the uid pool, crash leftovers, no-root mode."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.envs.live import host
from backend.envs.live.base import LIVE, live_kind
from backend.envs.live.checks import CHECK_DIR
from backend.envs.live.procs import processes
from backend.envs.live.runtime import python_executable, python_runtime
from backend.envs.live.sandbox import Sandbox
from backend.errors import LiveEnvironmentError, UnknownNameError
from tests.support.live import leftovers, live_config, skip_unless_live, skip_unless_root

REPO = Path(__file__).resolve().parents[2]


def test_the_three_domains_are_registered() -> None:
    for domain in ("terminal", "swe", "mcp"):
        kind = live_kind(domain)
        assert kind.domain == domain
        assert kind.tasks()
        assert isinstance(kind.missing(), str)
    assert {"terminal", "swe", "mcp"} <= set(LIVE.names())
    with pytest.raises(UnknownNameError):
        live_kind("android")


def test_missing_programs_name_the_debian_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host, "program", lambda name: None if name in {"bwrap", "tmux"} else name)
    message = host.missing_programs(("bwrap", "tmux", "setpriv"))
    assert message == (
        "install the Debian packages bubblewrap tmux to enable live environments "
        "(missing: bwrap, tmux)"
    )
    assert host.missing_programs(("setpriv",)) == ""


def test_without_root_or_user_namespaces_live_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(host, "program", lambda name: "/bin/false")  # bwrap fails to start
    mode = host.host_mode.__wrapped__()  # type: ignore[attr-defined]
    assert mode.privilege is host.Privilege.NONE
    assert "uid 1000 without root" in mode.reason
    assert "user namespaces" in mode.reason


@pytest.fixture
def opened() -> Iterator[list[Sandbox]]:
    boxes: list[Sandbox] = []
    yield boxes
    for box in boxes:
        box.close()


@skip_unless_live("terminal")
@skip_unless_root()
def test_limits_are_set_before_the_uid_drop(tmp_path: Path, opened: list[Sandbox]) -> None:
    box = Sandbox(live_config(tmp_path)).open()
    opened.append(box)
    argv = box.command(["true"])
    names = [Path(arg).name for arg in argv]
    assert names.index("prlimit") < names.index("setpriv") < names.index("bwrap")
    assert f"--reuid={box.uid}" in argv and "--no-new-privs" in argv
    assert argv[argv.index("--remount-ro") + 1] == "/"
    assert "--share-net" not in argv and "--unshare-all" in argv


@skip_unless_live("terminal")
@skip_unless_root()
def test_each_sandbox_gets_its_own_uid_until_the_pool_is_empty(
    tmp_path: Path, opened: list[Sandbox]
) -> None:
    config = live_config(tmp_path, uid_count=2)
    opened += [Sandbox(config).open(), Sandbox(config).open()]
    assert opened[0].uid != opened[1].uid
    with pytest.raises(LiveEnvironmentError, match="All 2 sandbox uids"):
        Sandbox(config).open()


@skip_unless_live("terminal")
@skip_unless_root()
def test_two_instances_with_their_own_data_never_share_a_uid(opened: list[Sandbox]) -> None:
    """A second app with another data directory once took the first one's uid and killed it."""
    # Data directories a sandbox uid can reach hold their own scratch folders (and held their
    # own uid locks); pytest's tmp_path cannot be reached, so every sandbox there shares one.
    one, two = (Path(tempfile.mkdtemp(prefix="awp-instance-")) for _ in range(2))
    for folder in (one, two):
        folder.chmod(0o755)
    first = Sandbox(live_config(one, uid_count=2)).open()
    opened.append(first)
    sleeper = subprocess.Popen(first.command(["sleep", "60"]), env={"PATH": host.HOST_PATH})
    try:
        for _ in range(500):  # until the sleeper runs as the sandbox's uid
            if processes(first.uid):
                break
            time.sleep(0.02)
        second = Sandbox(live_config(two, uid_count=2)).open()
        opened.append(second)
        assert second.uid != first.uid
        assert sleeper.poll() is None  # the first instance's program was left alone
    finally:
        sleeper.kill()
        sleeper.wait()
        for box in opened:
            box.close()
        for folder in (one, two):
            shutil.rmtree(folder, ignore_errors=True)


@skip_unless_live("terminal")
def test_a_folder_shown_over_the_interpreter_is_refused(
    tmp_path: Path, opened: list[Sandbox]
) -> None:
    """CI once ran from a clone under /check: the check's folder, bound there, hid the venv."""
    box = Sandbox(live_config(tmp_path)).open()
    opened.append(box)
    assert box.folder is not None
    shown = box.folder / "shown"  # where run_check puts a check's files: the uid can read it
    shown.mkdir(mode=0o755)
    top = "/" + Path(sys.prefix).parts[1]
    with pytest.raises(LiveEnvironmentError, match=f"Cannot show a folder at {top}"):
        box.run([python_executable(), "-c", "pass"], timeout_s=10, read_only={shown: top})
    assert all(CHECK_DIR not in map(str, view.parents) for view in python_runtime())
    ran = box.run(
        [python_executable(), "-c", "print(1)"], timeout_s=30, read_only={shown: CHECK_DIR}
    )
    assert (ran.exit_code, ran.output) == (0, "1\n")


@skip_unless_live("terminal")
@skip_unless_root()
def test_a_crashed_sessions_leftovers_are_reclaimed(tmp_path: Path, opened: list[Sandbox]) -> None:
    config = live_config(tmp_path, uid_count=1)
    crashed = Sandbox(config).open()
    assert crashed.folder is not None and crashed._lease is not None
    folder, uid = crashed.folder, crashed.uid
    sleeper = subprocess.Popen(crashed.command(["sleep", "300"]), env={"PATH": host.HOST_PATH})
    for _ in range(500):  # until the sleeper runs in its namespace, as a crash would leave it
        if any(p.namespace_init for p in processes(uid)):
            break
        time.sleep(0.02)
    crashed._lease.release()  # what a crash does: the lock goes with the process
    reaper = threading.Thread(target=sleeper.wait)  # as the host's init would, once orphaned
    reaper.start()
    again = Sandbox(config).open()  # the only uid: its processes and mounts must be cleared
    opened.append(again)
    reaper.join(timeout=10)
    assert sleeper.returncode is not None and sleeper.returncode != 0
    assert again.uid == uid and again.folder == folder
    assert again.run(["ls", "-A"], timeout_s=10).output == ""
    again.close()
    assert leftovers(uid, folder) == []


@skip_unless_live("terminal")
@skip_unless_root()
def test_without_root_the_terminal_runs_in_user_namespaces() -> None:
    """The app as an ordinary user: bwrap alone, the app's own uid, files and limits still apply."""
    python = shutil.which(
        f"python{sys.version_info.major}.{sys.version_info.minor}", path="/usr/bin"
    )
    site = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = site / "site-packages"
    if python is None or not (os.stat(sys.prefix).st_mode & 0o005):
        pytest.skip("needs a system Python that an ordinary user can run with this venv's packages")
    work = Path(tempfile.mkdtemp(prefix="awp-nonroot-"))
    work.chmod(0o777)
    script = (
        "import json, os; from pathlib import Path; "
        "from backend.envs.live.base import LiveConfig, live_kind; "
        "from backend.envs.live.host import host_mode; "
        "print(host_mode().privilege.value); "
        f"env = live_kind('terminal').build(LiveConfig(work_dir=Path('{work}'))); env.start(); "
        "keys = [{'keystrokes': 'id -u; touch /etc/x; echo $$\\n', 'duration': 1.0}]; "
        "print(env.act(json.dumps(keys)).observation); env.close(); "
        "from backend.envs.live.instance import sandboxes_left; "
        f"print(sandboxes_left(Path('{work}')))"
    )
    try:
        done = subprocess.run(
            [
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "--",
                python,
                "-c",
                script,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env={"PATH": host.HOST_PATH, "PYTHONPATH": f"{REPO}:{site}", "HOME": str(work)},
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if "No module named" in done.stderr:
        pytest.skip(f"this venv's packages do not load in {python}: {done.stderr[-200:]}")
    lines = done.stdout.splitlines()
    assert lines[0] == "userns", done.stderr
    assert "1000" in lines  # inside, as everywhere: uid 1000
    assert "touch: cannot touch '/etc/x': Read-only file system" in lines
    assert lines[-1] == "[]"  # no sandbox's folder left in the work folder
