"""Live real environments: one module per domain, registered in `LIVE` by domain name.

Modules are imported on first use (`load_builtin_live`), so the heavy imports they need (libtmux,
the MCP SDK, Playwright) cost nothing to a process that never starts a live environment.
"""

from __future__ import annotations

import importlib

BUILTIN: tuple[str, ...] = ("terminal", "swe", "mcp", "web")
"""Module names under `backend.envs.live` that register a live environment when imported."""


def load_builtin_live() -> None:
    """Import every built-in live-environment module so that each registers its factory."""
    for module in BUILTIN:
        importlib.import_module(f"backend.envs.live.{module}")
