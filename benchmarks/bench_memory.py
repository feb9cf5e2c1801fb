"""The web app's memory: at rest, with the model loaded, per open session, and after they close.

Starts `awp serve` (a child process, a scratch data directory), reads its RSS at rest, then
has `--sessions` gradio_client sessions each load a recorded terminal turn and Step it with the
embedded model (`--engine transformers`, 8 new tokens; `persistence` measures the sessions
alone). The model is loaded once per process and shared by every page and session (the
context's engine cache), so RSS should jump once with the first step and then grow only by each
session's own state; the sessions then close, and RSS is read again.

Usage: PYTHONPATH=. python benchmarks/bench_memory.py [--sessions 20] [--engine transformers]
       [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import httpx
from gradio_client import Client

from tests.support.openai_server import free_port

ROOT = Path(__file__).resolve().parents[1]
PREPARED = Path(os.environ.get("AWP_DATA_DIR", Path.home() / ".agentworld")) / "models"
TERMINAL = "mkrww/errors"


def rss_mib(pid: int) -> float:
    """A process's resident memory in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--engine", default="transformers")
    parser.add_argument("--json", type=Path)
    options = parser.parse_args(argv)
    port = free_port()
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch) / "data"
        data.mkdir()
        if PREPARED.is_dir():
            (data / "models").symlink_to(PREPARED, target_is_directory=True)
        env = {**os.environ, "AWP_DATA_DIR": str(data), "AWP_PORT": str(port)}
        env.update(AWP_MAX_NEW_TOKENS="8", AWP_GROUNDING="false", PYTHONPATH=str(ROOT))
        log = (Path(scratch) / "serve.log").open("wb")
        server = subprocess.Popen(
            [sys.executable, "-m", "app", "serve"], stdout=log, stderr=subprocess.STDOUT, env=env
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 300
            while True:
                try:
                    if httpx.get(url, timeout=5).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("awp serve did not start")
                time.sleep(1)
            time.sleep(3)
            rest = rss_mib(server.pid)
            clients, after = [], []
            for _ in range(options.sessions):
                client = Client(url, verbose=False)
                client.predict("terminal", TERMINAL, 0, api_name="/load_turn")
                action = client.predict("terminal", TERMINAL, 0, api_name="/load_turn")[0]
                client.predict(action, engine=options.engine, api_name="/step")
                clients.append(client)
                after.append(rss_mib(server.pid))
            for client in clients:
                client.close()
            time.sleep(5)
            closed = rss_mib(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=60)
            log.close()
    first = after[0]
    per_session = (after[-1] - first) / max(1, len(after) - 1)
    row = {
        "engine": options.engine,
        "sessions": options.sessions,
        "rss_at_rest_mib": round(rest, 1),
        "rss_after_first_step_mib": round(first, 1),
        "rss_after_all_sessions_mib": round(after[-1], 1),
        "mib_per_further_session": round(per_session, 2),
        "rss_after_close_mib": round(closed, 1),
    }
    print(json.dumps(row))
    if options.json:
        options.json.write_text(json.dumps(row, indent=2))


if __name__ == "__main__":
    main()
