"""Running `awp` commands in-process in tests, and a data directory of their own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import build_cli
from app.context import AppContext, build_context


@pytest.fixture
def awp_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh AWP_DATA_DIR (its SQLite database included) for the commands a test runs."""
    monkeypatch.setenv("AWP_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.fixture
def awp_context(awp_data: Path) -> Iterator[AppContext]:
    """What the commands of a test stored, read back through the one composition root.

    Built from the same `AWP_*` environment as the commands, so it sees their database; the
    database opens on first use (after the commands ran) and its pool closes with the test.
    """
    with build_context() as context:
        yield context


def run(*args: str) -> tuple[int, str]:
    """Run `awp ARGS...` in-process: (exit code, output), a domain error as exit code 2."""
    result = CliRunner().invoke(build_cli(), list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return 2, f"{type(result.exception).__name__}: {result.exception}"
    return result.exit_code, result.output
