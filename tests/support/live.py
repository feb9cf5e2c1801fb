"""Helpers for the live-environment tests: skip reasons, configs, leftovers after close.

Live environments need bubblewrap, tmux and util-linux, and either root (a uid per sandbox) or
unprivileged user namespaces; tests skip with the environment's own message when the machine
lacks one of them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from backend.envs.live.base import LiveConfig, LiveEnvironment, LiveStep, live_kind
from backend.envs.live.host import Privilege, host_mode
from backend.envs.live.procs import processes


def skip_unless_live(domain: str) -> pytest.MarkDecorator:
    """Skip a test module when the domain's live environment cannot run on this machine."""
    missing = live_kind(domain).missing()
    return pytest.mark.skipif(bool(missing), reason=f"live {domain}: {missing}")


def skip_unless_root() -> pytest.MarkDecorator:
    """Skip unless sandboxes drop to their own uid (the mode the escape tests are about)."""
    mode = host_mode()
    return pytest.mark.skipif(
        mode.privilege is not Privilege.ROOT,
        reason="the uid-per-sandbox escape tests need root (this process runs without it)",
    )


def worker_uid_base() -> int:
    """A uid pool of this pytest-xdist worker's own, so tests of a small pool run in parallel.

    Sandboxes of every process share one machine-wide lock per uid: a test that wants exactly
    one or two uids must not find them held by another worker's sandboxes, nor by the app's
    own pool (from 61,000) that the UI and CLI tests start.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    return 61_000 + 128 * (1 + (int(worker) if worker.isdigit() else 0))


def live_config(tmp_path: Path, **limits: object) -> LiveConfig:
    """A config with a private work folder and small limits, so limit tests finish fast."""
    values: dict[str, object] = {
        "uid_base": worker_uid_base(),
        "memory_mb": 512,
        "disk_mb": 64,
        "processes": 64,
        "cpu_seconds": 10,
        "file_mb": 16,
        "action_timeout_s": 20.0,
    }
    values.update(limits)
    return LiveConfig(work_dir=tmp_path / "live", **values)  # type: ignore[arg-type]


def keys(*batches: tuple[str, float]) -> str:
    """A terminal action from (keystrokes, duration) pairs."""
    return json.dumps([{"keystrokes": k, "duration": d} for k, d in batches])


PROMPT = "user@sandbox:~$"


def until(terminal: LiveEnvironment, action: str, shown: Callable[[LiveStep], bool]) -> LiveStep:
    """Act, then wait in 0.2 s steps until `shown` holds (a busy machine may need more time)."""
    step = terminal.act(action)
    for _ in range(50):
        if shown(step):
            return step
        step = terminal.act(keys(("", 0.2)))
    raise AssertionError(f"never shown; the screen is:\n{step.observation}")


def output_then_prompt(text: str) -> Callable[[LiveStep], bool]:
    """The screen shows `text` and the shell is back at its prompt."""
    return lambda step: text in step.observation and step.observation.endswith("$")


def call(name: str, **arguments: object) -> str:
    """A tool-call action."""
    return json.dumps({"name": name, "arguments": arguments})


def sandbox_of(env: LiveEnvironment) -> tuple[int, Path]:
    """The uid and scratch folder of a started environment."""
    sandbox = env._sandbox  # type: ignore[attr-defined]
    assert sandbox is not None and sandbox.folder is not None
    return sandbox.uid, sandbox.folder


def leftovers(uid: int, folder: Path) -> list[str]:
    """What a closed environment left behind: processes of its uid, its folder, its mounts."""
    left = []
    if uid != os.getuid():
        left += [f"process {p.pid} ({p.state})" for p in processes(uid)]
    if folder.exists():
        left.append(f"folder {folder}")
    mounts = Path("/proc/self/mounts").read_text()
    left += [f"mount {line}" for line in mounts.splitlines() if str(folder) in line]
    return left
