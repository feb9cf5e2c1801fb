"""Wait for a server process a test started: one rule for every server the suite runs.

A busy CI machine can take minutes to import a server's dependencies, so the deadline is
generous; a process that dies is reported at once, with the end of its log.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

READY_TIMEOUT_S = 180.0


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_healthy(
    process: subprocess.Popen[bytes],
    health_url: str,
    log: Path,
    what: str,
    timeout_s: float = READY_TIMEOUT_S,
) -> None:
    """Poll `health_url` until it answers 200, the process exits, or `timeout_s` passes.

    Raises:
        RuntimeError: the process exited or never answered; the message carries its log's end.
    """
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited ({process.returncode}):\n{tail(log)}")
        try:
            if httpx.get(health_url, timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"{what} did not answer {health_url} within {timeout_s:g} s:\n{tail(log)}")


def tail(log: Path, lines: int = 40) -> str:
    """The last lines of a log file."""
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


@contextmanager
def awp_env_server(
    log_dir: Path, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> Iterator[str]:
    """Run `awp env serve ARGS` on a free port until the block ends; yields its URL once healthy.

    Args:
        log_dir: where `serve.log` is written (its end is shown if the server fails).
        args: the command's options after `env serve`.
        env: the server's environment (default: this process's).
        cwd: its working folder (default: this process's).
    """
    port = free_port()
    command = [sys.executable, "-m", "app", "env", "serve", *args, "--port", str(port)]
    path = log_dir / "serve.log"
    with path.open("wb") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env=env or dict(os.environ), cwd=cwd
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(process, f"{url}/health", path, "awp env serve")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
