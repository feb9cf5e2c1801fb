"""Escape attempts against the live sandbox: each must fail and change nothing outside.

The public Space runs agent-chosen commands, so these are the contract of the sandbox: no network,
no writes outside the scratch folder, no host secrets, processes or privileges, bounded processes,
memory, disk and CPU, no host environment variables, MCP servers kept to their folders, and
nothing left after close. They need the uid-per-sandbox mode (root).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.envs.live.base import LiveConfig
from backend.envs.live.mcp import McpEnvironment
from backend.envs.live.mcp_servers import SERVER_SETS
from backend.envs.live.procs import processes
from backend.envs.live.runtime import python_runtime
from backend.envs.live.sandbox import Sandbox
from backend.envs.live.swe import SweEnvironment
from backend.envs.live.terminal import TerminalEnvironment
from tests.support.live import (
    call,
    keys,
    leftovers,
    live_config,
    output_then_prompt,
    sandbox_of,
    skip_unless_live,
    skip_unless_root,
    until,
)

pytestmark = [skip_unless_live("terminal"), skip_unless_root()]

CANARY = "AWP_TEST_CANARY_SECRET"


@pytest.fixture
def config(tmp_path: Path) -> LiveConfig:
    return live_config(tmp_path)


@pytest.fixture
def sandbox(config: LiveConfig) -> Iterator[Sandbox]:
    box = Sandbox(config).open()
    yield box
    box.close()


def run(box: Sandbox, script: str, timeout_s: float = 30.0) -> str:
    """Run a script in the sandbox; its output, stdout and stderr together."""
    return box.run(["bash", "-c", script], timeout_s=timeout_s).output


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP service on the host's loopback that the sandbox must not reach."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.5)
    yield server
    server.close()


def test_no_network_to_the_host_loopback(sandbox: Sandbox, listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    output = run(
        sandbox,
        f"echo hi > /dev/tcp/127.0.0.1/{port} && echo CONNECTED; "
        f"python -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 2)\" "
        "2>&1 | tail -1",
    )
    assert "CONNECTED" not in output
    assert "Connection refused" in output
    with pytest.raises(TimeoutError):
        listener.accept()


def test_no_network_at_all(sandbox: Sandbox) -> None:
    output = run(sandbox, "getent hosts pypi.org; echo rc=$?; cat /proc/net/dev | wc -l")
    assert "rc=2" in output  # no name resolution
    assert output.split()[-1] == "3"  # two header lines and only the loopback device


def test_writes_outside_the_scratch_folder_fail(sandbox: Sandbox, tmp_path: Path) -> None:
    runtime = python_runtime()[0]
    targets = ["/x", "/etc/x", "/usr/x", "/dev/x", "/var/x", f"{runtime}/x", "/usr/local/x"]
    script = "; ".join(f"touch {t} 2>&1" for t in targets)
    output = run(sandbox, script + "; mount -o remount,rw /usr 2>&1; echo done")
    refusals = ("Read-only file system", "Permission denied", "No such file or directory")
    assert sum(output.count(refusal) for refusal in refusals) == len(targets)
    assert "must be superuser" in output or "Permission denied" in output
    assert not (runtime / "x").exists()
    assert not Path("/x").exists() and not Path("/usr/x").exists()


def test_host_files_stay_unseen_and_secret(sandbox: Sandbox, tmp_path: Path) -> None:
    canary = tmp_path / "host-only.txt"
    canary.write_text("host secret")
    output = run(sandbox, f"cat {canary} 2>&1; cat /etc/shadow 2>&1; ls /root 2>&1")
    assert "host secret" not in output
    assert "No such file or directory" in output
    assert "/etc/shadow: Permission denied" in output


def test_host_processes_are_invisible(sandbox: Sandbox) -> None:
    output = run(sandbox, f"ps -eo pid=,comm=; kill -0 {os.getpid()} 2>&1")
    names = [line.split()[1] for line in output.splitlines() if line.strip()[:1].isdigit()]
    assert "pytest" not in names and "python" not in names
    assert set(names) <= {"bwrap", "bash", "ps"}
    assert "No such process" in output


def test_no_way_to_gain_privileges(sandbox: Sandbox) -> None:
    output = run(
        sandbox,
        "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status; "
        "su -c id root </dev/null 2>&1; echo su=$?; "
        "unshare -Ur id 2>&1; echo unshare=$?; "
        "mkdir -p /tmp/m && mount -t tmpfs none /tmp/m 2>&1; echo mount=$?; "
        "grep NoNewPrivs /proc/self/status",
    )
    assert output.count("0000000000000000") == 3
    for tool in ("su", "unshare", "mount"):
        assert f"{tool}=0" not in output
    assert "NoNewPrivs:\t1" in output


def test_memory_exhaustion_stops_at_the_limit(sandbox: Sandbox) -> None:
    output = run(sandbox, "python -c 'x = bytearray(3 * 1024 ** 3)' 2>&1 | tail -1")
    assert output.strip() == "MemoryError"


def test_disk_exhaustion_stops_at_the_limits(sandbox: Sandbox, config: LiveConfig) -> None:
    output = run(
        sandbox,
        f"head -c {config.file_mb + 1}M /dev/zero > big 2>&1; ls -l big | cut -d' ' -f5; "
        "for i in 1 2 3 4 5 6; do head -c 15M /dev/zero > f$i || break; done 2>&1; "
        "head -c 1G /dev/zero > /tmp/t 2>&1; ls -l /tmp/t | cut -d' ' -f5",
    )
    lines = output.splitlines()
    assert str(config.file_mb * 1024 * 1024) in lines  # the one file stopped at the file limit
    assert "No space left on device" in output  # all files together stopped at the disk limit
    assert sandbox.folder is not None and os.path.ismount(sandbox.folder)
    disk = os.statvfs(sandbox.folder)  # home and /tmp both live on the session's tmpfs
    assert disk.f_blocks * disk.f_frsize == config.disk_mb * 1024 * 1024
    assert disk.f_bfree * disk.f_frsize < config.file_mb * 1024 * 1024


def test_runaway_cpu_is_killed(tmp_path: Path) -> None:
    box = Sandbox(live_config(tmp_path, cpu_seconds=1)).open()
    try:
        output = run(box, "python -c 'while True: pass'; echo status=$?", timeout_s=60)
        assert "status=152" in output or "status=137" in output  # SIGXCPU or SIGKILL
    finally:
        box.close()


def test_no_host_environment_reaches_any_sandboxed_process(
    config: LiveConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CANARY, "leaked")
    terminal = TerminalEnvironment(config)
    mcp = McpEnvironment(config)
    try:
        terminal.start()
        step = until(
            terminal,
            keys(("env | grep -c AWP_; grep -c AWP /proc/self/environ\n", 0.5)),
            output_then_prompt("environ\n"),
        )
        assert step.observation.splitlines()[-3:-1] == ["0", "0"]
        uids = [sandbox_of(terminal)[0]]
        if not SERVER_SETS["time"].servers[0].needs():
            mcp.start("time")
            uids.append(sandbox_of(mcp)[0])
        for uid in uids:
            for proc in processes(uid):
                environ = Path(f"/proc/{proc.pid}/environ").read_bytes()
                assert CANARY.encode() not in environ
    finally:
        terminal.close()
        mcp.close()


def test_fork_bomb_is_contained_and_cleaned_up(config: LiveConfig) -> None:
    terminal = TerminalEnvironment(config)
    try:
        terminal.start()
        uid, folder = sandbox_of(terminal)
        step = terminal.act(keys(("bomb() { bomb | bomb & }; bomb\n", 3.0)))
        assert "fork: retry: Resource temporarily unavailable" in step.observation
        count = len([p for p in processes(uid) if p.state != "Z"])
        assert count <= config.processes
        assert subprocess.run(["true"], timeout=10).returncode == 0  # the host still forks
        terminal.act(keys(("C-c", 0.2)))
    finally:
        terminal.close()
    assert leftovers(uid, folder) == []


def test_editor_writes_stay_inside(tmp_path: Path) -> None:
    swe = SweEnvironment(live_config(tmp_path))
    target = tmp_path / "host-target.txt"
    target.write_text("unchanged")
    try:
        swe.start()
        swe.act(call("bash", command=f"ln -s {target} /testbed/link; ln -s /etc/hosts /testbed/h"))
        outside = swe.act(
            call("str_replace_editor", command="create", path=str(target), file_text="owned")
        )
        assert outside.observation.startswith("The parent directory")  # /tmp is the sandbox's
        linked = swe.act(call("str_replace_editor", command="view", path="/testbed/link"))
        assert (
            linked.observation
            == "The path /testbed/link does not exist. Please provide a valid path."
        )
        through = swe.act(
            call(
                "str_replace_editor",
                command="str_replace",
                path="/testbed/h",
                old_str="127.0.0.1",
                new_str="evil",
            )
        )
        assert through.observation.startswith("Ran into [Errno 30] Read-only file system")
    finally:
        swe.close()
    assert target.read_text() == "unchanged"
    assert "evil" not in Path("/etc/hosts").read_text()


@pytest.mark.skipif(bool(SERVER_SETS["filesystem"].servers[0].needs()), reason="no npm servers")
def test_filesystem_server_stays_in_its_folder(config: LiveConfig) -> None:
    mcp = McpEnvironment(config)
    try:
        mcp.start("filesystem")
        for path in ("/home/user/files/../memory.jsonl", "/etc/passwd", "/home/user"):
            step = mcp.act(call("list_directory", path=path))
            body = json.loads(step.observation)
            assert body["isError"] is True
            assert "outside allowed directories" in body["content"][0]["text"]
        wrote = mcp.act(call("write_file", path="/home/user/files/../../escape", content="x"))
        assert json.loads(wrote.observation)["isError"] is True
        folder = sandbox_of(mcp)[1]
        assert not (folder / "home" / "escape").exists()
    finally:
        mcp.close()


@pytest.mark.skipif(bool(SERVER_SETS["git"].servers[0].needs()), reason="no mcp-server-git")
def test_git_server_stays_in_its_repository(config: LiveConfig) -> None:
    mcp = McpEnvironment(config)
    try:
        mcp.start("git")
        for path in ("/home/user", "/home/user/repo/..", "/work"):
            step = mcp.act(call("git_status", repo_path=path))
            body = json.loads(step.observation)
            assert body["isError"] is True
            assert "outside the allowed repository" in body["content"][0]["text"]
    finally:
        mcp.close()
