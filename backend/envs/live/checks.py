"""Success checks of live tasks, run in the live environment but out of the agent's reach.

A check is a short Python program we wrote, run by a fresh isolated interpreter (`python -I`:
no environment variables, no user site, no current folder on `sys.path`) in a new sandboxed
process of the session's sandbox, as its uid. So the agent's shell aliases, `PATH`, `.pth` files
or a `conftest.py` never reach it, and neither can the agent's processes (they live in other pid
namespaces). Files the check needs that the agent must not see or edit (a task's hidden tests) are
copied, at check time, into a fresh root-owned folder shown read-only at `/.awp-check` (a name no
host folder of the interpreter lives under: a CI clone under `/check` once had its venv hidden).

A check passes only when the program prints a nonce it read from its stdin and exits 0, so code
of the agent's that the check imports (the hidden tests import the agent's fix) cannot pass it by
exiting early (`os._exit(0)`) or by printing a success line. Code imported into the check's own
process can still tamper with that process on purpose; that is the limit of running tests.
"""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.abc import Traversable
from pathlib import Path

from backend.envs.live.base import Check
from backend.envs.live.runtime import python_executable
from backend.envs.live.sandbox import HOME, Sandbox
from backend.envs.live.shipped import copy_shipped
from backend.errors import LiveEnvironmentError

CHECK_DIR = "/.awp-check"
OUTPUT_TAIL = 4000
_PRELUDE = '''
import ctypes, os, stat, subprocess, sys
_NONCE = sys.stdin.readline().strip()
# PR_SET_DUMPABLE 0: programs the check runs (the agent's) cannot ptrace it or read its memory.
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)


def text_of(path):
    """The text of a regular file that is no symlink (None otherwise).

    Non-blocking, so a FIFO in the file's place cannot hold the check until its time runs out.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, encoding="utf-8", errors="replace") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return None
        return file.read()


def output_of(argv):
    """What a program prints (stdout), run with no way to reach the check's own output."""
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def passed(ok, why=""):
    """Print the verdict; only a passing one carries the nonce."""
    print(f"{_NONCE} passed" if ok else f"check failed: {why}")
    sys.exit(0 if ok else 1)
'''


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: passed or not, and what the program said."""

    passed: bool
    output: str


def hidden_tests(files: Traversable, root: str) -> Check:
    """The check that a task's own copy of its tests passes against the project at `root`.

    pytest runs in the check's process with no conftest.py, no ini file and no cache of the
    project's (its config is an empty file of ours); the project folder comes last on `sys.path`,
    so a `pytest.py` or `json.py` the agent puts there shadows nothing. Every collected test must
    pass, and at least one must be collected.
    """
    program = f"""
import pytest


class _Tally:
    collected = passed_calls = failures = 0

    def pytest_collection_finish(self, session):
        self.collected = len(session.items)

    def pytest_runtest_logreport(self, report):
        if report.failed:
            self.failures += 1
        elif report.when == "call" and report.passed:
            self.passed_calls += 1


tally = _Tally()
sys.path.append({root!r})
args = ["-q", "-p", "no:cacheprovider", "--noconftest", "-c", "{CHECK_DIR}/pytest.ini"]
code = pytest.main([*args, "--rootdir", "{CHECK_DIR}", "{CHECK_DIR}/tests"], plugins=[tally])
ok = code == 0 and tally.failures == 0 and 0 < tally.passed_calls == tally.collected
passed(ok, f"pytest exit {{code}}, {{tally.passed_calls}}/{{tally.collected}} passed")
"""
    return Check("the task's hidden copy of its tests passes", program, files)


def run_check(
    sandbox: Sandbox,
    check: Check,
    *,
    timeout_s: float,
    binds: Mapping[Path, str] | None = None,
) -> CheckResult:
    """Run `check`'s program in a fresh sandboxed process of `sandbox`.

    Args:
        sandbox: the session's open sandbox (the state the check reads is in it).
        check: the task's check (with a program).
        timeout_s: time limit; a check that runs out of time fails.
        binds: the environment's own writable binds (swe's /testbed), so the check sees the
            project where the agent left it.

    Returns:
        Passed when the program exits 0 having printed the nonce it was given.

    Raises:
        LiveEnvironmentError: the sandbox is not open.
    """
    folder = sandbox.folder
    if folder is None:
        raise LiveEnvironmentError("The sandbox is not open: start the environment first.")
    shown = folder / f"check-{secrets.token_hex(8)}"
    shown.mkdir(mode=0o755)
    try:
        if check.files is not None:
            copy_shipped(check.files, shown, None)
        (shown / "pytest.ini").write_text("[pytest]\n")
        nonce = secrets.token_hex(16)
        result = sandbox.run(
            [python_executable(), "-I", "-c", _PRELUDE + check.program],
            timeout_s=timeout_s,
            stdin=f"{nonce}\n".encode(),
            cwd=HOME,
            binds=binds,
            read_only={shown: CHECK_DIR},
        )
    finally:
        shutil.rmtree(shown, ignore_errors=True)
    ok = result.exit_code == 0 and f"{nonce} passed" in result.output
    said = result.output.replace(f"{nonce} passed", "check passed").replace(nonce, "")
    return CheckResult(ok, said[-OUTPUT_TAIL:])
