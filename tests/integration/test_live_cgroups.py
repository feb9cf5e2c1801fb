"""Limits of a whole sandbox, not of each process: memory, CPU, tasks, and nothing between steps.

Real sandboxes as root, with figures read from the sandbox's own cgroup files; skipped where the
cgroup filesystem is not writable (an unprivileged Space), where only per-process limits hold.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backend.envs.live import cgroups
from backend.envs.live.base import LiveConfig, live_kind
from backend.envs.live.browser import SandboxedChromium
from backend.envs.live.sandbox import Sandbox
from backend.envs.live.terminal import TerminalEnvironment
from backend.envs.live.web import miniwob_pages, web_missing
from tests.support.live import keys, leftovers, live_config, sandbox_of, skip_unless_live

MIB = 1024 * 1024

pytestmark = [
    skip_unless_live("terminal"),
    pytest.mark.skipif(
        not cgroups.enabled(), reason=f"no whole-sandbox limits here: {cgroups.unavailable()}"
    ),
]


@pytest.fixture
def config(tmp_path: Path) -> LiveConfig:
    return live_config(tmp_path, cpu_share=0.5, sandbox_cpu_seconds=30)


@pytest.fixture
def sandbox(config: LiveConfig) -> Iterator[Sandbox]:
    opened = Sandbox(config).open()
    yield opened
    opened.close()


def _group(sandbox: Sandbox) -> cgroups.Group:
    assert sandbox.group is not None
    return sandbox.group


def test_five_big_processes_share_one_memory_limit(sandbox: Sandbox, config: LiveConfig) -> None:
    """Five 400 MB processes, each under the per-process limit, cannot hold 2 GB together."""
    hog = "b = bytearray(400 << 20); b[::4096] = b'x' * (len(b) // 4096); import time; "
    hog += "time.sleep(2)"
    script = f'for i in 1 2 3 4 5; do python -c "{hog}" & done; wait'
    sandbox.run(["bash", "-c", script], timeout_s=60)
    usage = _group(sandbox).usage()
    limit = (config.memory_mb + config.disk_mb) * MIB
    assert limit < 5 * 400 * MIB
    assert usage.memory_peak <= limit
    assert usage.oom_kills >= 5 - limit // (400 * MIB)  # at most one fits: the rest were killed


def test_the_whole_sandbox_has_one_task_limit(sandbox: Sandbox, config: LiveConfig) -> None:
    done = sandbox.run(["bash", "-c", "for i in $(seq 200); do sleep 5 & done; wait"], timeout_s=60)
    usage = _group(sandbox).usage()
    assert "Resource temporarily unavailable" in done.output
    assert (_group(sandbox).path("pids") / "pids.max").read_text().strip() == str(config.processes)
    assert 0 < usage.tasks_peak <= config.processes


def test_a_cpu_burner_left_in_the_background_stops_with_the_action(config: LiveConfig) -> None:
    """Background burners run only while an action runs, under the quota; none survive close."""
    terminal = TerminalEnvironment(config)
    terminal.start()
    uid, folder = sandbox_of(terminal)
    group = _group(terminal._sandbox)  # type: ignore[arg-type]
    try:
        # The tmux server is in the sandbox's group too (issue 20: it had no CPU limit).
        assert terminal._server is not None and terminal._server.pid in group.pids()
        started = time.monotonic()
        terminal.act(keys(("for i in 1 2 3; do (while :; do :; done) & done\n", 1.5)))
        acted_s = time.monotonic() - started
        assert group.frozen
        before = group.usage()
        time.sleep(1.0)
        after = group.usage()
        assert after.cpu_s - before.cpu_s < 0.02  # frozen: no CPU at all between actions
        # Three burners, half a core: the quota held them (on an idle machine the kernel also
        # counts throttled periods; on a loaded one they get less than the quota anyway).
        quota = "cpu.cfs_quota_us" if group.version == 1 else "cpu.max"
        assert (group.path("cpu") / quota).read_text().split()[0] == "50000"
        assert after.cpu_s <= 0.5 * acted_s + 0.1
        assert "for i in" in terminal.observe()  # the screen the action left
        terminal.act(keys(("", 0.5)))
        assert group.usage().cpu_s > after.cpu_s  # they run again during the next action
    finally:
        terminal.close()
    assert leftovers(uid, folder) == []
    assert not group.path("memory").exists()


def test_the_sandbox_cpu_budget_ends_the_shell(tmp_path: Path) -> None:
    config = live_config(tmp_path, cpu_share=1.0, sandbox_cpu_seconds=1)
    terminal = TerminalEnvironment(config)
    terminal.start()
    try:
        step = terminal.act(keys(("(while :; do :; done) &\n", 1.0)))
        for _ in range(20):  # a busy machine gives the burner less than a core
            if step.done:
                break
            step = terminal.act(keys(("", 1.0)))
        assert step.done
        assert "CPU-time budget" in step.info["ended"]
    finally:
        terminal.close()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[SandboxedChromium]:
    if web_missing():
        pytest.skip(f"live web: {web_missing()}")
    pages = miniwob_pages()
    assert pages is not None
    opened = SandboxedChromium(tmp_path, [pages], tmp_mb=64, timeout_s=120, memory_mb=512)
    yield opened
    opened.close()


def test_many_tabs_stay_within_the_browser_memory_limit(browser: SandboxedChromium) -> None:
    """40 tabs of 40 MB each would need 1.6 GB: the browser's group holds them to 640 MB."""
    page = "data:text/html,<script>window.b=new Uint8Array(40<<20).fill(1)</script>"

    def open_tabs(chromium: Any) -> int:
        context = chromium.new_context()
        for _ in range(40):
            tab = context.new_page()
            try:
                tab.goto(page)
            except Exception:  # a tab the OOM killer ended; the next one tries again
                continue
        return len(context.pages)

    with contextlib.suppress(Exception):  # the kernel may have killed the browser itself
        browser.run(open_tabs)
    usage = browser.usage()
    assert usage is not None
    assert usage.memory_peak <= (512 + 2 * 64) * MIB
    assert usage.oom_kills > 0  # the browser's limit, not the tabs' appetite, ended there


def test_web_workers_stop_burning_after_the_step(browser: SandboxedChromium) -> None:
    worker = "while(true){}"
    page = (
        "data:text/html,<script>for(let i=0;i<2;i++)"
        f"new Worker(URL.createObjectURL(new Blob(['{worker}'])))</script>"
    )

    def load(chromium: Any) -> None:
        tab = chromium.new_page()
        tab.goto(page)
        tab.wait_for_timeout(1000)

    browser.run(load)
    before = browser.usage()
    time.sleep(1.0)
    after = browser.usage()
    assert before is not None and after is not None
    assert before.throttled > 0  # while the step ran, the workers got the quota, no more
    assert after.cpu_s - before.cpu_s < 0.02


def test_with_cgroups_off_only_the_per_process_limits_hold(tmp_path: Path) -> None:
    """`AWP_LIVE_CGROUPS=off`: no group, and the UI's sentence says so (as on a Space)."""
    config = live_config(tmp_path, cgroups=False)
    sandbox = Sandbox(config).open()
    try:
        assert sandbox.group is None and sandbox.enter() == []
        assert sandbox.run(["true"], timeout_s=20).exit_code == 0
    finally:
        sandbox.close()
    assert cgroups.limits_held(config).startswith("Limits hold per process only")
    assert cgroups.limits_held(live_config(tmp_path)).startswith("Limits hold per sandbox")


def test_live_kinds_all_use_sandboxes_with_groups(config: LiveConfig) -> None:
    """The swe and mcp environments run in the same kind of group (it is the sandbox's)."""
    for domain in ("swe", "mcp"):
        env = live_kind(domain).build(config)
        if live_kind(domain).missing():
            continue
        env.start()
        try:
            sandbox = env._sandbox  # type: ignore[attr-defined]
            assert sandbox.group is not None and sandbox.group.usage().cpu_s > 0
        finally:
            env.close()
