"""A restart removes what its killed predecessor left: the tmux server, mounts and groups.

Issue 20: after kill -9 of the app, its sandboxes' tmux sessions and tmpfs mounts survived and
a restart did not clean them. Here a real process starts a live terminal and is killed with
SIGKILL; the next process to claim the same work folder must leave nothing of it behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from backend.envs.live import cgroups
from backend.envs.live.procs import cmdline, processes
from tests.support.live import skip_unless_live, skip_unless_root

pytestmark = [skip_unless_live("terminal"), skip_unless_root()]

REPO = Path(__file__).resolve().parents[2]
APP = """
import sys, time
from pathlib import Path
from backend.envs.live.base import LiveConfig, live_kind
from backend.envs.live.instance import claim
work = Path(sys.argv[1])
live_kind("terminal").build(LiveConfig(work_dir=work)).start()
print(claim(work).folder, claim(work).name, flush=True)
time.sleep(600)
"""
RESTART = """
import sys
from pathlib import Path
from backend.envs.live.instance import claim
claim(Path(sys.argv[1]))
"""


def left_by(folder: Path, name: str) -> dict[str, int]:
    """What of an instance is still there: processes, mounts, control groups."""
    marker = f"{folder}/"
    mounts = Path("/proc/self/mounts").read_text().split("\n")
    groups = [
        path for path in cgroups.hierarchy().mounts.values() if (path / cgroups.TOP / name).exists()
    ]
    return {
        "processes": sum(any(marker in a for a in cmdline(p.pid)) for p in processes()),
        "mounts": sum(marker in line for line in mounts),
        "groups": len(groups),
    }


def python(code: str, work: Path) -> list[str]:
    return [sys.executable, "-c", code, str(work)]


def test_a_restart_removes_what_a_killed_app_left(tmp_path: Path) -> None:
    work = tmp_path / "live"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    app = subprocess.Popen(python(APP, work), stdout=subprocess.PIPE, text=True, env=env)
    assert app.stdout is not None
    folder_text, name = app.stdout.readline().split()
    folder = Path(folder_text)
    app.send_signal(signal.SIGKILL)
    app.wait()
    before = left_by(folder, name)
    assert before["processes"] >= 1 and before["mounts"] >= 1  # the tmux server, the tmpfs
    assert before["groups"] == (len(set(cgroups.hierarchy().mounts.values())))

    subprocess.run(python(RESTART, work), check=True, env=env, timeout=120)
    assert left_by(folder, name) == {"processes": 0, "mounts": 0, "groups": 0}
