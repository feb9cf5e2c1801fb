"""SWE-agent `.traj` files: executed demonstrations in SWE-bench and CTF docker environments.

`trajectory[i] = {action, observation, state, ...}` holds each executed command and the raw tool
output. The `history` messages show the same output with SWE-agent's prompt template around it
(`(Open file: ...) (Current directory: ...) bash-$`); the raw `observation` is what the
environment produced, so it is the one kept. The state (open file, working directory) goes to
`metadata["states"]`, the agent's system message, which documents the special commands
(`open`, `edit`, `find_file`, ...), to `metadata["agent_system_prompt"]`.

The SWE-bench files are swe-domain trajectories; the CTF demonstrations are shell work, filed
under the terminal domain.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from backend.data.recorded.common import SHELL_ACTIONS, Provenance, read_json
from backend.types import Trajectory, Turn

PROVENANCE = Provenance("SWE-agent/SWE-agent", "3ea751c087f32b16e039a2233dd6eefecef325d5", "MIT")
SWE_FOLDER = "swe/swe-agent"
CTF_FOLDER = "terminal/swe-agent-ctf"
REPO_PATHS = {
    "marshmallow-code__marshmallow-1867.traj": "trajectories/demonstrations/"
    "replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1/",
    "pydicom__pydicom-1458.traj": "tests/test_data/trajectories/"
    "gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/",
    "swe-agent__test-repo-i1.traj": "tests/test_data/trajectories/"
    "gpt4__swe-agent__test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/",
    "networking_1.traj": "trajectories/demonstrations/ctf/misc/",
    "BabyEncryption.traj": "trajectories/demonstrations/ctf/crypto/",
    "rock.traj": "trajectories/demonstrations/ctf/rev/",
}
NOTES = {
    "swe": (
        "Executed SWE-agent steps in a SWE-bench docker environment. Each action is the recorded "
        "SWE-agent command as a `bash` tool call (SWE-agent runs its special commands in bash); "
        "each observation is the raw recorded tool output, without SWE-agent's prompt template."
    ),
    "terminal": (
        "Executed SWE-agent CTF demonstration steps in a docker shell. Each action is the "
        "recorded command typed with Enter and a fixed 1.0 s wait; each observation is the raw "
        "recorded command output, not a full screen."
    ),
}


def _state(raw: str | dict[str, Any]) -> dict[str, Any]:
    """The per-step state, stored as a JSON string by older SWE-agent versions."""
    return json.loads(raw) if isinstance(raw, str) else raw


def _task(history: list[dict[str, Any]]) -> str:
    """The first user message that is not a demonstration: the issue or challenge statement."""
    for message in history:
        if message["role"] == "user" and not message.get("is_demo"):
            return str(message["content"])
    return ""


def _convert_file(root: Path, path: Path, domain: str) -> Trajectory:
    record = read_json(path)
    steps = record["trajectory"]
    to_action = SHELL_ACTIONS[domain]
    turns = [Turn(action=to_action(s["action"]), observation=s["observation"]) for s in steps]
    system = next((m["content"] for m in record["history"] if m["role"] == "system"), "")
    return PROVENANCE.trajectory(
        id=f"swe-agent/{path.stem}",
        domain=domain,
        path=REPO_PATHS[path.name] + path.name,
        files=[str(path.relative_to(root))],
        turns=turns,
        task=_task(record["history"]),
        notes=NOTES[domain],
        metadata={
            "states": [_state(s["state"]) for s in steps],
            "agent_system_prompt": system,
        },
    )


def _convert_folder(root: Path, folder: str, domain: str) -> list[Trajectory]:
    return [_convert_file(root, p, domain) for p in sorted((root / folder).glob("*.traj"))]


def convert_swe(root: Path) -> list[Trajectory]:
    """The SWE-bench trajectories, as swe-domain trajectories."""
    return _convert_folder(root, SWE_FOLDER, "swe")


def convert_ctf(root: Path) -> list[Trajectory]:
    """The CTF demonstrations, as terminal-domain trajectories."""
    return _convert_folder(root, CTF_FOLDER, "terminal")
