"""The OpenEnv hub folder: `openenv validate` passes it, and the server it starts passes `--url`.

Both checks are OpenEnv's own CLI (`openenv-core`), run as a user would before `openenv push`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.health import free_port, wait_healthy

REPO = Path(__file__).resolve().parents[2]
HUB = REPO / "app" / "hub" / "awp_world_model"
OPENENV = Path(sys.prefix) / "bin" / "openenv"


def openenv(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(OPENENV), *args], capture_output=True, text=True, timeout=120, cwd=REPO
    )


def test_openenv_validates_the_shipped_folder(tmp_path: Path) -> None:
    done = openenv("validate", str(HUB), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["passed"] is True

    broken = tmp_path / "awp_world_model"
    shutil.copytree(HUB, broken)
    (broken / "uv.lock").unlink()
    (broken / "server" / "app.py").write_text("print('no main')\n")
    done = openenv("validate", str(broken))
    assert done.returncode != 0 and "Missing uv.lock" in done.stdout
    assert "missing main() function" in done.stdout


@pytest.mark.slow
def test_the_folders_server_passes_runtime_validation(tmp_path: Path) -> None:
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "AWP_DATA_DIR": str(tmp_path / "data"),
        "AWP_ENGINE": "oracle",
        "AWP_ENV_DOMAIN": "terminal",
        "HOST": "127.0.0.1",
        "PORT": str(port),
    }
    log = (tmp_path / "server.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "server.app"], cwd=HUB, env=env, stdout=log, stderr=log
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(process, f"{url}/health", tmp_path / "server.log", "the hub server")
        done = openenv("validate", "--url", url)
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["passed"], done.stdout
    assert report["summary"]["failed_criteria"] == []
