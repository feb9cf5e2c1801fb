"""MKRWW command triples: shell commands run in one persistent bash session, with real output.

Each file is `{domain, history: [{action, observation}], action, truth: {stdout, stderr,
exit_code, cwd, fs_delta}}`; files of one sequence (`errors_00`, `errors_02`, ...) share a prefix
and the last one carries the whole history, so a sequence becomes one trajectory.

Observation composition (decided here, documented in every trajectory's notes):
- a step whose full `truth` is recorded (the last step of some file) shows stderr, then a newline,
  then stdout, each only when non-empty. The source keeps the streams apart and did not record
  their interleaving; the sequences chain follow-up commands (`cmd; echo rc=$?`) whose output
  comes after the failing command's diagnostics, which is the order stderr-first reproduces.
- any other step shows the history `observation`, which the source records as stdout only;
  those turn numbers are listed in `metadata["stdout_only_turns"]`.
The raw truth records stay in `metadata["truth"]` keyed by turn number.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from backend.data.recorded.common import SHELL_ACTIONS, Provenance, read_json
from backend.errors import BadInputError
from backend.types import Trajectory, Turn

FOLDER = "terminal/MKRWW_triples"
REPO = "MKRWW/qwen3.6_27b-vs_Qwen-AgentWorld-35B-A3B"
COMMITS = {
    "longchain_09.json": "795857294bb688d6c7b5dfd7b253b8e340261fdf",
    "longchain2_09.json": "66609c7e54d2fc81e735ca668675093ba69f9ab2",
    "swe_06.json": "66609c7e54d2fc81e735ca668675093ba69f9ab2",
}
DEFAULT_COMMIT = "42f34a130d49644b9c19e63e93b68b53e3f01af5"
NOTES = (
    "Real output of each command in one persistent bash session (MKRWW gen_triples.py). "
    "Actions are the recorded commands in the domain's action layout (terminal: typed keys plus "
    "Enter with a fixed 1.0 s wait; swe: a `bash` tool call). Observations are command output, "
    "not a full screen: no prompt or echoed command was recorded. A step with a full truth record "
    "shows stderr then stdout (their interleaving was not recorded); other steps show stdout "
    "only (see metadata.stdout_only_turns)."
)
_SEQUENCE = re.compile(r"^(?P<name>.+)_\d+$")


def compose_truth(truth: dict[str, Any]) -> str:
    """The observation of a fully recorded step: stderr, then stdout, each only when non-empty."""
    return "\n".join(part for part in (truth["stderr"], truth["stdout"]) if part)


def _sequence_name(path: Path) -> str:
    match = _SEQUENCE.match(path.stem)
    return match["name"] if match else path.stem


def _convert_sequence(root: Path, name: str, files: list[Path]) -> Trajectory:
    """One trajectory from all files of a sequence: the longest gives the steps, all give truths."""
    records = {path: read_json(path) for path in files}
    base_path = max(files, key=lambda path: len(records[path]["history"]))
    base = records[base_path]
    steps = [(step["action"], step["observation"]) for step in base["history"]]
    steps.append((base["action"], None))
    truths: dict[int, dict[str, Any]] = {}
    for path, record in records.items():
        index = len(record["history"])
        if steps[index][0] != record["action"]:
            raise BadInputError(f"{path}: its action differs from step {index + 1} of {name}")
        truths[index] = record["truth"]
    domain = base["domain"]
    to_action = SHELL_ACTIONS[domain]
    turns = [
        Turn(
            action=to_action(command),
            observation=compose_truth(truths[i]) if i in truths else observation,
        )
        for i, (command, observation) in enumerate(steps)
    ]
    relative = [str(path.relative_to(root)) for path in sorted(files)]
    provenance = Provenance(REPO, COMMITS.get(base_path.name, DEFAULT_COMMIT), "MIT")
    return provenance.trajectory(
        id=f"mkrww/{name}",
        domain=domain,
        path=f"tasks/{base_path.parent.name}/triples/{base_path.name}",
        files=relative,
        turns=turns,
        notes=NOTES,
        metadata={
            "truth": {str(i + 1): truth for i, truth in sorted(truths.items())},
            "stdout_only_turns": [i + 1 for i in range(len(steps)) if i not in truths],
        },
    )


def convert(root: Path) -> list[Trajectory]:
    """Convert every MKRWW sequence under `root` (terminal and swe triples alike)."""
    groups: dict[tuple[str, str], list[Path]] = {}
    for path in sorted((root / FOLDER).glob("*/*.json")):
        groups.setdefault((path.parent.name, _sequence_name(path)), []).append(path)
    return [_convert_sequence(root, name, files) for (_, name), files in sorted(groups.items())]
