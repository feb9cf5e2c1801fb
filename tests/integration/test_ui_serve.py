"""The Docker image's entry command and healthcheck, run outside Docker (Docker is not available).

The CMD and HEALTHCHECK lines are read from the Dockerfile itself, so the test fails when they
drift from what the code can start. `awp` is provided by a shim over `app.cli.main`, since the
project is not installed as a package in the test environment.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support.app_server import free_port

REPO = Path(__file__).resolve().parents[2]
STARTUP_S = 180


def dockerfile_line(prefix: str) -> str:
    text = (REPO / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    return next(line for line in text.splitlines() if line.startswith(prefix))[len(prefix) :]


def awp_shim(folder: Path) -> Path:
    shim = folder / "awp"
    shim.write_text(
        f'#!/bin/sh\nexec {sys.executable} -c "from app.cli import main; main()" "$@"\n'
    )
    shim.chmod(0o755)
    return folder


def wait_until_up(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the entry command exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(1)
    raise AssertionError("the app did not answer in time")


@pytest.mark.slow
def test_entry_command_serves_and_passes_its_healthcheck(tmp_path: Path):
    command = json.loads(dockerfile_line("CMD "))
    port = free_port()
    models = tmp_path / "model-cache"
    models.mkdir()
    env = {
        **os.environ,
        "PATH": f"{awp_shim(tmp_path)}:{os.environ['PATH']}",
        "PYTHONPATH": str(REPO),
        "AWP_DATA_DIR": str(tmp_path / "data"),
        "AWP_MODEL_CACHE": str(models),
        "AWP_HOST": "127.0.0.1",
        "AWP_PORT": str(port),
        "AWP_ENGINE": "persistence",
    }
    log = (tmp_path / "serve.log").open("w")
    process = subprocess.Popen(command, env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until_up(f"http://127.0.0.1:{port}/", process)
        assert (tmp_path / "data" / "models").resolve() == models.resolve()
        assert (tmp_path / "data" / "awp.db").is_file()
        health = shlex.split(dockerfile_line("HEALTHCHECK ").split(" CMD ", 1)[1])
        health[0] = sys.executable if health[0] == "python" else health[0]
        assert subprocess.run(health, env=env, timeout=30).returncode == 0
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()
