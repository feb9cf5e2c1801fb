"""The `str_replace_editor` tool, run INSIDE the swe sandbox: standard library only.

The swe environment starts it as `python -I -S -c <this file's source>` in the sandbox, with the
call's arguments as JSON on stdin, so that every file access happens as the sandbox uid (a
symlink the agent planted cannot make the host write anywhere). Its messages follow SWE-agent's
`str_replace_editor` (the Anthropic text-editor tool), whose outputs the recorded swe data shows.
Undo history lives in a folder only editor calls get (the agent's shell cannot see it).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HISTORY = Path("/var/lib/str_replace_editor/history.json")
SNIPPET_LINES = 4
MAX_RESPONSE_LEN = 16000
TRUNCATED = (
    "<response clipped><NOTE>To save on context only part of this file has been shown to you. "
    "You should retry this tool after you have searched inside the file with `grep -n` in order "
    "to find the line numbers of what you are looking for.</NOTE>"
)
COMMANDS = ("view", "create", "str_replace", "insert", "undo_edit")


class ToolError(Exception):
    """A refused call: the message is the tool's whole output."""


def numbered(text: str, described: str, first: int = 1) -> str:
    """`cat -n`-style listing of `text`, its lines numbered from `first`."""
    if len(text) > MAX_RESPONSE_LEN:
        text = text[:MAX_RESPONSE_LEN] + TRUNCATED
    lines = text.expandtabs().split("\n")
    body = "\n".join(f"{number:6}\t{line}" for number, line in enumerate(lines, start=first))
    return f"Here's the result of running `cat -n` on {described}:\n{body}\n"


def read(path: Path) -> str:
    """The file's text, trying UTF-8 then Latin-1 (never failing on odd bytes)."""
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def write(path: Path, text: str) -> None:
    """Write the file, turning an OS error into the tool's message."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ToolError(f"Ran into {exc} while trying to write to {path}") from None


def history() -> dict[str, list[str]]:
    """Earlier contents of each edited file, oldest first."""
    try:
        return json.loads(HISTORY.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def remember(path: Path, text: str) -> None:
    """Push a version of `path` for undo_edit."""
    saved = history()
    saved.setdefault(str(path), []).append(text)
    HISTORY.write_text(json.dumps(saved), encoding="utf-8")


def check_path(command: str, path: Path) -> None:
    """Refuse relative paths, missing files, overwriting creates and edits of folders."""
    if not path.is_absolute():
        raise ToolError(
            f"The path {path} is not an absolute path, it should start with `/`. "
            f"Maybe you meant {Path.cwd() / path}?"
        )
    if not path.exists() and command != "create":
        raise ToolError(f"The path {path} does not exist. Please provide a valid path.")
    if path.exists() and command == "create":
        raise ToolError(
            f"File already exists at: {path}. Cannot overwrite files using command `create`."
        )
    if path.is_dir() and command != "view":
        raise ToolError(
            f"The path {path} is a directory and only the `view` command can be used on directories"
        )


def view(path: Path, view_range: list[int] | None) -> str:
    """A folder's tree two levels deep, or a file (or a range of its lines) numbered."""
    if path.is_dir():
        if view_range:
            raise ToolError(
                "The `view_range` parameter is not allowed when `path` points to a directory."
            )
        found = subprocess.run(
            ["find", str(path), "-maxdepth", "2", "-not", "-path", "*/.*"],
            capture_output=True,
            text=True,
        )
        return (
            f"Here's the files and directories up to 2 levels deep in {path}, excluding hidden "
            f"items:\n{found.stdout}\n"
        )
    text = read(path)
    if not view_range:
        return numbered(text, str(path))
    if len(view_range) != 2 or not all(isinstance(n, int) for n in view_range):
        raise ToolError("Invalid `view_range`. It should be a list of two integers.")
    lines = text.split("\n")
    first, last = view_range
    if not 1 <= first <= len(lines):
        raise ToolError(
            f"Invalid `view_range`: {view_range}. Its first element `{first}` should be within "
            f"the range of lines of the file: {[1, len(lines)]}"
        )
    if last > len(lines):
        raise ToolError(
            f"Invalid `view_range`: {view_range}. Its second element `{last}` should be smaller "
            f"than the number of lines in the file: `{len(lines)}`"
        )
    if last != -1 and last < first:
        raise ToolError(
            f"Invalid `view_range`: {view_range}. Its second element `{last}` should be larger or "
            f"equal than its first `{first}`"
        )
    last = len(lines) if last == -1 else last
    return numbered("\n".join(lines[first - 1 : last]), str(path), first)


def create(path: Path, file_text: str | None) -> str:
    """Create a new file (never overwrite one)."""
    if file_text is None:
        raise ToolError("Parameter `file_text` is required for command: create")
    if not path.parent.exists():
        raise ToolError(
            f"The parent directory {path.parent} does not exist. Please create it first."
        )
    write(path, file_text)
    remember(path, file_text)
    return f"File created successfully at: {path}"


def str_replace(path: Path, old: str | None, new: str | None) -> str:
    """Replace the one occurrence of `old` with `new` and show the edited lines."""
    if old is None:
        raise ToolError("Parameter `old_str` is required for command: str_replace")
    text = read(path).expandtabs()
    old, new = old.expandtabs(), (new or "").expandtabs()
    count = text.count(old)
    if count == 0:
        raise ToolError(
            f"No replacement was performed, old_str `{old}` did not appear verbatim in {path}."
        )
    if count > 1:
        lines = [n for n, line in enumerate(text.split("\n"), start=1) if old in line]
        raise ToolError(
            f"No replacement was performed. Multiple occurrences of old_str `{old}` in lines "
            f"{lines}. Please ensure it is unique"
        )
    if new == old:
        raise ToolError(
            f"No replacement was performed, old_str `{old}` is the same as new_str `{new}`."
        )
    edited = text.replace(old, new)
    write(path, edited)
    remember(path, text)
    at = text.split(old)[0].count("\n")
    first = max(1, at - SNIPPET_LINES)
    last = min(at + SNIPPET_LINES + new.count("\n"), len(edited.splitlines()))
    snippet = "\n".join(edited.split("\n")[first - 1 : last])
    return (
        f"The file {path} has been edited. {numbered(snippet, f'a snippet of {path}', first)}"
        "Review the changes and make sure they are as expected. Edit the file again if necessary."
    )


def insert(path: Path, line: int | None, new: str | None) -> str:
    """Insert `new` after line `line` (0: at the top) and show the edited lines."""
    if line is None:
        raise ToolError("Parameter `insert_line` is required for command: insert")
    if new is None:
        raise ToolError("Parameter `new_str` is required for command: insert")
    text = read(path).expandtabs()
    lines, added = text.split("\n"), new.expandtabs().split("\n")
    if not 0 <= line <= len(lines):
        raise ToolError(
            f"Invalid `insert_line` parameter: {line}. It should be within the range of lines of "
            f"the file: {[0, len(lines)]}"
        )
    write(path, "\n".join(lines[:line] + added + lines[line:]))
    remember(path, text)
    around = lines[max(0, line - SNIPPET_LINES) : line] + added
    snippet = "\n".join(around + lines[line : line + SNIPPET_LINES])
    shown = numbered(snippet, "a snippet of the edited file", max(1, line - SNIPPET_LINES + 1))
    return (
        f"The file {path} has been edited. {shown}Review the changes and make sure they are as "
        "expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary."
    )


def undo_edit(path: Path) -> str:
    """Put back the file's content from before its last edit."""
    saved = history()
    versions = saved.get(str(path)) or []
    if not versions:
        raise ToolError(f"No edit history found for {path}.")
    text = versions.pop()
    HISTORY.write_text(json.dumps(saved), encoding="utf-8")
    write(path, text)
    return f"Last edit to {path} undone successfully. {numbered(text, str(path))}"


def run(call: dict[str, object]) -> str:
    """Carry out one call; raises ToolError with the tool's message when refused."""
    command = str(call.get("command", ""))
    path = Path(str(call.get("path", "")))
    if command not in COMMANDS:
        allowed = ", ".join(f'"{name}"' for name in COMMANDS)
        raise ToolError(
            f"Unrecognized command {command}. The allowed commands for the str_replace_editor "
            f"tool are: {allowed}"
        )
    check_path(command, path)
    text = call.get("file_text")
    old, new = call.get("old_str"), call.get("new_str")
    line, span = call.get("insert_line"), call.get("view_range")
    if command == "view":
        return view(path, span if isinstance(span, list) else None)
    if command == "create":
        return create(path, text if isinstance(text, str) else None)
    if command == "str_replace":
        return str_replace(path, *(v if isinstance(v, str) else None for v in (old, new)))
    if command == "insert":
        return insert(
            path, line if isinstance(line, int) else None, new if isinstance(new, str) else None
        )
    return undo_edit(path)


def main() -> int:
    """Read the call from stdin, print the tool's output; exit 1 when the call was refused.

    Whatever goes wrong is reported as the tool reports a refusal, in one message: the agent
    reads tool output, and a Python traceback would be an observation no real tool gives.
    """
    try:
        call = json.loads(sys.stdin.read())
        if not isinstance(call, dict):
            raise ToolError("The str_replace_editor tool takes an object of named parameters.")
        print(run(call))
    except ToolError as exc:
        print(exc)
        return 1
    except (ValueError, RecursionError):
        print("The str_replace_editor call is not valid JSON.")
        return 1
    except Exception as exc:
        print(f"Ran into {type(exc).__name__}: {exc} while running str_replace_editor.")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
