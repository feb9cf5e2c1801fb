"""Wait for a server process a test started: one rule for every server the suite runs.

A busy CI machine can take minutes to import a server's dependencies, so the deadline is
generous; a process that dies is reported at once, with the end of its log.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import httpx

READY_TIMEOUT_S = 180.0


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
