"""Live real environments: one module per domain, registered in `LIVE` by domain name.

Modules are imported on first use (`load_builtin_live`), so the heavy imports they need (libtmux,
the MCP SDK, Playwright) cost nothing to a process that never starts a live environment. Which
domains have one is a fact of the domain (`Domain.live`), so a new live environment is its module
plus `live=True` on its domain.
"""

from __future__ import annotations

import importlib

from backend.domains.base import all_domains


def load_builtin_live() -> None:
    """Import the live-environment module of every domain that declares one, so each registers."""
    for domain in all_domains():
        if domain.live:
            importlib.import_module(f"backend.envs.live.{domain.name}")
