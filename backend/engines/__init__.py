"""Engines: one module each, registered in `ENGINES` by name; heavy imports stay inside them."""

from __future__ import annotations

import importlib

BUILTIN = ("transformers_engine", "openai_engine", "vllm_engine", "baselines")


def load_builtin_engines() -> None:
    """Import every built-in engine module so that each registers its factory."""
    for module in BUILTIN:
        importlib.import_module(f"backend.engines.{module}")
