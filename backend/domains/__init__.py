"""Domains: one module each, registered in `DOMAINS` by name."""

from __future__ import annotations

import importlib

BUILTIN = ("terminal", "swe", "mcp", "search", "web", "os", "android")


def load_builtin_domains() -> None:
    """Import every built-in domain module; each registers itself once (imports are cached)."""
    for name in BUILTIN:
        importlib.import_module(f"backend.domains.{name}")
