"""A real OpenAI-compatible server for tests: `transformers serve` on a local model folder.

The `openai` engine is tested against a real server rather than a mock, so that the wire format
(event stream, usage, error bodies) is the one servers actually send. `transformers serve` given a
folder path preloads that model and answers only for it, under the path as its model id.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.health import free_port, wait_healthy


@dataclass(frozen=True)
class OpenAIServer:
    """A running server: the `base_url` (ending in `/v1`) and the `model` id it serves."""

    base_url: str
    model: str


@contextmanager
def serve_openai(model_dir: Path, log_path: Path) -> Iterator[OpenAIServer]:
    """Run `transformers serve` on `model_dir` until the block ends.

    Args:
        model_dir: a model folder with weights, tokenizer and chat template.
        log_path: where the server's output goes (shown when it fails to start).

    Yields:
        The running server, once `/health` answers.
    """
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "transformers.cli.transformers",
        "serve",
        str(model_dir),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--device",
        "cpu",
    ]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        wait_healthy(process, f"http://127.0.0.1:{port}/health", log_path, "transformers serve")
        yield OpenAIServer(base_url=f"http://127.0.0.1:{port}/v1", model=str(model_dir))
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
