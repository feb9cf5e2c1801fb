"""The SWE editor reports every error as SWE-agent's `str_replace_editor` does: one message.

It runs as the sandbox runs it (`python -I -S`, the call as JSON on stdin), here on a scratch
folder; what the agent sends may be anything, and its observation is never a traceback.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EDITOR = Path(__file__).resolve().parents[2] / "backend" / "envs" / "live" / "editor.py"


def call(stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-S", str(EDITOR)],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("not json", "is not valid JSON"),
        ("[1, 2]", "takes an object of named parameters"),
        ('"view"', "takes an object of named parameters"),
        ("[" * 100_000, "is not valid JSON"),
        ('{"command": "bogus", "path": "/tmp"}', "Unrecognized command bogus"),
    ],
    ids=["text", "list", "string", "deep", "command"],
)
def test_bad_calls_read_as_the_tool_reports_them(stdin: str, message: str) -> None:
    done = call(stdin)
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
    assert message in done.stdout and done.stderr == ""


def test_a_file_that_is_a_folder_on_the_way_is_an_error_message(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\n")
    request = {"command": "create", "path": f"{tmp_path}/f.txt/x", "file_text": "x"}
    done = call(json.dumps(request))
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
    assert "Ran into" in done.stdout
