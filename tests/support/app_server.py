"""Launch the real app in-process on a free loopback port, over a temporary data dir and SQLite.

Also names the outputs of the Playground endpoints, so tests read `out["real"]` rather than a
positional index that changes whenever the page gains a component.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from app.auth import Auth
from app.context import AppContext, build_context
from app.settings import Settings
from app.web import launch

# Which one is real? and Arena endpoint outputs. The API leaves buttons out: a vote disables
# them in the browser only.
REAL_OUTPUTS = (
    "browser",
    "context",
    "sides",
    "choice",
    "confidence",
    "reveal",
    "results",
    "message",
)
ARENA_OUTPUTS = (
    "browser",
    "context",
    "sides",
    "reveal",
    "people",
    "judge",
    "chart",
    "chart_note",
    "agreement",
    "message",
)
STEP_OUTPUTS = (
    "action",
    "position",
    "before",
    "status",
    "predicted",
    "real",
    "reasoning",
    "scores",
    "diff",
    "timeline",
    "screenshot",
    "job",
)
"""Outputs of /load_turn, /step, /rewind and /branch (the session state is hidden)."""


def named(values: Sequence[Any], names: Sequence[str] = STEP_OUTPUTS) -> dict[str, Any]:
    """Endpoint outputs keyed by name."""
    return dict(zip(names, values, strict=True))


ENDED = re.compile(r'data-status="(finished|failed|cancelled)"')
POLLS = 600
"""Polls of a job before `follow_job` gives up (0.1 s apart: a minute of wall time)."""


def job_status(line: str) -> str:
    """The status a job line shows (`running`, `finished`, ...), "" for an inline error."""
    found = re.search(r'data-status="(\w+)"', line or "")
    return found.group(1) if found else ""


def follow_job(client: Any, api_name: str, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """Start the job endpoint `api_name` and poll it until it ends.

    Returns:
        The start's job line when the start was refused (an inline error, no job), else the
        last poll's outputs: the job line first, then what the page's `show` filled.
    """
    started = client.predict(*args, api_name=f"/{api_name}", **kwargs)
    line = started if isinstance(started, str) else started[0]
    if not job_status(line):
        return line, None
    for _ in range(POLLS):
        out = client.predict(api_name=f"/{api_name}_poll")
        line = out if isinstance(out, str) else out[0]
        if ENDED.search(line or ""):
            return line, out
        time.sleep(0.1)
    raise AssertionError(f"job of /{api_name} still running after {POLLS} polls: {line}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class RunningApp:
    url: str
    blocks: gr.Blocks
    context: AppContext

    @property
    def settings(self) -> Settings:
        """The app's settings."""
        return self.context.settings

    def close(self) -> None:
        self.blocks.close()
        self.context.close()


def start_app(
    data_dir: Path, engine: str = "persistence", settings: dict[str, Any] | None = None, **auth: Any
) -> RunningApp:
    """Serve the app with `engine` as the default engine.

    Args:
        data_dir: the app's data directory (its SQLite database goes there).
        engine: the default engine.
        settings: other `Settings` fields.
        auth: login and role fields of `Settings` (users, admins, anonymous_role).
    """
    context = build_context(
        data_dir=data_dir,
        engine=engine,
        host="127.0.0.1",
        port=free_port(),
        **(settings or {}),
        **auth,
    )
    blocks = launch(context, Auth(context.settings), block=False)
    return RunningApp(f"http://127.0.0.1:{context.settings.port}/", blocks, context)
