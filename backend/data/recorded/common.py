"""Helpers shared by the recorded-data converters: provenance, file reading, action layouts.

Every converter turns one source folder of `shared/data/recorded` into Trajectories. The rules
they share live here so that each converter only says what is special about its source:
observations are copied from the recorded files and never edited; when an action is translated
into a domain's action format, the translation is a fixed function of recorded fields.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backend.domains.base import PromptContext, get_domain
from backend.errors import BadActionError, BadInputError
from backend.types import Trajectory, Turn

Converter = Callable[[Path], list[Trajectory]]

TERMINAL_KEY_DURATION = 1.0
"""Seconds of waiting given to a translated terminal command.

The sources record the command and its output, not how long the agent waited; one fixed value
keeps the translation deterministic (each recorded command had finished when its output was
taken, so the value only has to be plausible).
"""


@dataclass(frozen=True)
class Provenance:
    """Where a source comes from, as the MANIFEST states it.

    Attributes:
        repo: `owner/name` of the public repository.
        commit: the commit the files were taken from (None when the MANIFEST names none).
        licence: SPDX identifier of the repository's licence.
    """

    repo: str
    commit: str | None
    licence: str

    def trajectory(
        self, *, path: str, files: list[str], turns: list[Turn], **fields: Any
    ) -> Trajectory:
        """Build a Trajectory that carries this provenance.

        Args:
            path: the file's path inside the source repository (named in `source`).
            files: the files under `shared/data/recorded` it was read from, kept in metadata so
                that a check can re-read them.
            turns: the converted turns; unless the trajectory says `action_inferred`, each
                action is checked and written in its domain's canonical form.
            **fields: the remaining Trajectory fields (id, domain, task, notes, metadata ...).
        """
        metadata = {"recorded_files": files, **fields.pop("metadata", {})}
        if not fields.get("action_inferred", False):
            turns = canonical_turns(fields["domain"], turns, fields["id"])
        return Trajectory(
            source=f"{self.repo}:{path}",
            commit=self.commit,
            licence=self.licence,
            turns=turns,
            metadata=metadata,
            **fields,
        )


def canonical_turns(domain: str, turns: list[Turn], where: str) -> list[Turn]:
    """Pass every recorded action through its domain's validator.

    A recorded action is then written the way the playground writes it, and a converter that
    builds an action the domain would refuse fails here rather than in a later simulation.

    Raises:
        BadInputError: an action is not valid in the domain; the message names the trajectory.
    """
    validate = get_domain(domain).validate
    context = PromptContext()
    try:
        return [
            turn.model_copy(update={"action": validate(turn.action, context)}) for turn in turns
        ]
    except BadActionError as exc:
        raise BadInputError(
            f"{where}: a recorded action is not a valid {domain} action: {exc}"
        ) from exc


def read_text(path: Path) -> str:
    """Read a UTF-8 text file, naming the file when it is missing or undecodable."""
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInputError(f"Cannot read recorded file {path}: {exc}") from exc


def read_json(path: Path) -> Any:
    """Parse a JSON file; a malformed file is a BadInputError naming it."""
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise BadInputError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from exc


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Yield the objects of a JSON-lines file, split on newlines only (U+2028 may occur in text)."""
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadInputError(f"{path}:{number}: not valid JSON: {exc.msg}") from exc


def dump_json(value: Any) -> str:
    """Serialise a recorded JSON value the way the recorders wrote it (UTF-8, no escaping)."""
    return json.dumps(value, ensure_ascii=False)


def keystroke_action(command: str) -> str:
    """A shell command as a terminal-domain action: type it and press Enter, then wait.

    A trailing newline already in the recorded command is the Enter key, so none is added.
    """
    keys = command if command.endswith("\n") else command + "\n"
    return dump_json([{"keystrokes": keys, "duration": TERMINAL_KEY_DURATION}])


def tool_call_action(name: str, arguments: dict[str, Any]) -> str:
    """A tool call in the `{"name", "arguments"}` layout of the mcp, swe and search domains."""
    return dump_json({"name": name, "arguments": arguments})


def bash_tool_action(command: str) -> str:
    """A shell command as a swe-domain action: a call of a `bash` tool with the command."""
    return tool_call_action("bash", {"command": command})


SHELL_ACTIONS: dict[str, Callable[[str], str]] = {
    "terminal": keystroke_action,
    "swe": bash_tool_action,
}
"""How a recorded shell command becomes an action, by the domain it is filed under."""


def parse_arguments(raw: str | dict[str, Any], where: str) -> dict[str, Any]:
    """Decode an OpenAI-style `arguments` field, which is a JSON string or already an object."""
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise BadInputError(f"{where}: tool-call arguments are not JSON: {exc.msg}") from exc
    if not isinstance(value, dict):
        raise BadInputError(f"{where}: tool-call arguments are not a JSON object")
    return value


def verify_checksums(root: Path) -> int:
    """Check every file listed in `root/SHA256SUMS` against its recorded digest.

    The recorded data is the ground truth of every benchmark here; a silently edited file would
    change scores, so the bundled set is only built from verified files.

    Returns:
        The number of files checked.

    Raises:
        BadInputError: the list is missing, or a file is missing or differs.
    """
    sums = root / "SHA256SUMS"
    bad: list[str] = []
    checked = 0
    for line in read_text(sums).split("\n"):
        if not line.strip():
            continue
        digest, _, name = line.partition("  ")
        path = root / name
        checked += 1
        if not path.is_file():
            bad.append(f"{name} (missing)")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            bad.append(f"{name} (modified)")
    if bad:
        raise BadInputError(f"Recorded data in {root} fails SHA256SUMS: {', '.join(bad)}")
    return checked
