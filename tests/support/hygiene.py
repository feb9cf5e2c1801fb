"""The suite leaves nothing behind: no new files in the repository, none in the user's data folder.

A test that forgets `--out` or `AWP_DATA_DIR` writes where a user's real work lives: a
`rollouts/` folder committed by accident, an `identity.key` in `~/.agentworld` that every later
app on the machine then signs with. Both went unnoticed until a person looked. This plugin
takes a snapshot when the run starts and fails the run, naming each path, when either place
gained an entry by the end. Under xdist only the controller checks, once, after every worker.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
USER_DATA = Path(os.environ.get("AWP_DATA_DIR", Path.home() / ".agentworld"))
SNAPSHOT = pytest.StashKey[frozenset[str]]()


def untracked() -> frozenset[str]:
    """Files git would show as new in the repository (ignored ones are fine: artifacts, caches)."""
    if not (REPO / ".git").exists():
        return frozenset()
    listing = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return frozenset(line[3:] for line in listing.splitlines() if line.startswith("??"))


def user_data_entries() -> frozenset[str]:
    """The entries of the user's data folder; `models` is the one tests may read from."""
    if not USER_DATA.is_dir():
        return frozenset()
    return frozenset(str(USER_DATA / entry.name) for entry in USER_DATA.iterdir())


def snapshot() -> frozenset[str]:
    """Everything the suite must not add to."""
    return untracked() | user_data_entries()


def is_controller(config: pytest.Config) -> bool:
    """Whether this process is the run's controller (no xdist, or xdist's main process)."""
    return not hasattr(config, "workerinput")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Remember what was there before any test ran."""
    if is_controller(session.config):
        session.config.stash[SNAPSHOT] = snapshot()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when a test left a file in the repository or the user's data folder."""
    if not is_controller(session.config) or SNAPSHOT not in session.config.stash:
        return
    left = sorted(snapshot() - session.config.stash[SNAPSHOT])
    if not left:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    lines = ["The tests left files where users keep their own work:", *left]
    if reporter is not None:
        reporter.write_line("\n".join(lines), red=True, bold=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
