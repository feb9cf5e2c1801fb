"""The playground's `inspect_ai` entry point, as an installed copy of pyproject.toml declares it.

Inspect finds extensions through installed package metadata. A development venv installed
before the entry point was declared has none, so tests put a distribution carrying exactly the
entry points pyproject.toml declares on `sys.path`: what Inspect then loads is the declaration
itself, read by Inspect's own loader.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def inspect_entry_point(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder on sys.path whose dist-info holds pyproject.toml's `inspect_ai` entry points."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    points = project["entry-points"]["inspect_ai"]
    root = tmp_path_factory.mktemp("inspect-entry-point")
    info = root / "agentworld_playground_entry_points-0.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: agentworld-playground-entry-points\nVersion: 0.0.0\n"
    )
    lines = "".join(f"{name} = {target}\n" for name, target in points.items())
    (info / "entry_points.txt").write_text(f"[inspect_ai]\n{lines}")
    sys.path.append(str(root))
    try:
        yield root
    finally:
        sys.path.remove(str(root))
