"""Android uiautomator dumps chained into trajectories by `derived_pairs.json`; actions inferred.

Every dump is a real capture; no source recorded the action between two dumps, so each action is
the android domain's `inferred` action holding the pair's `action_description` (inferred from file
names and a structural diff) and every
trajectory says `action_inferred=True`. Consecutive pairs where one's `after` is the next one's
`before` form one trajectory; the first `before` dump is its initial state.

Decoding keeps the XML byte-faithful except for transport artefacts: the encoding is detected
from a byte-order mark or NUL bytes (some dumps went through a PowerShell redirect and are
UTF-16LE), the mark is dropped, and the line "UI hierchary dumped to: /dev/tty" that the
`uiautomator dump` command prints after the document is removed: it is the command's own
message, not part of the screen.
"""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path
from typing import Any

from backend.data.recorded.common import Provenance, read_json
from backend.domains.android import ANDROID
from backend.domains.base import PromptContext
from backend.errors import BadInputError
from backend.types import Trajectory, Turn

FOLDER = "android"
PAIRS = f"{FOLDER}/derived_pairs.json"
SOURCES = {
    "shieldapp": Provenance(
        "beenuar/apps-android", "53f5bbe9f085bfed9d1934b30215acd2f153f6fd", "MIT"
    ),
    "taskmgr": Provenance(
        "andrea110292-droid/task-manager-testing-lab-Andrea",
        "b864f48dad0433957fbeb4bbd7892f7d3f022886",
        "MIT",
    ),
    "swiftapp": Provenance(
        "slashforyou/swift-app", "4507a80de13650e5cfa968d1de0b76a95467043b", "MIT"
    ),
    "swiftapp__MT": Provenance(
        "slashforyou/swift-app", "45ace21a0b3c84ac686b3aa7bfad74c3de0b6609", "MIT"
    ),
    "snowdogs": Provenance(
        "venusbhatia/SnowDogs", "ac17750d67cc44d17b4f5caff5d803083196c9a6", "MIT"
    ),
    "xiaocong-uiautomator": Provenance(
        "xiaocong/uiautomator", "ddef372b5bd3811f196290a1f75b636c6be9da2b", "MIT"
    ),
    "uicheckpoint": Provenance(
        "LlamaTouch/UICheckpoint", "396d1370de55775eb5f41a6c5e50b1c676c27b3d", "MIT"
    ),
    "visiontest": Provenance(
        "docer1990/visiontest", "8b635c742b00e4f9c4f60a8f5fd353d872ed7dd4", "MIT"
    ),
}
"""Provenance by file-name tag. The swift-app manual-test dumps (`MT__`) come from the later of
its two MANIFEST commits, the `logs/` dumps from the earlier (per the repository's file index)."""

NOTES = (
    "Real uiautomator dumps. The action was NOT recorded: it is inferred from the authors' file "
    "names and a structural diff of the two dumps (derived_pairs.json). Dumps are decoded by "
    "byte-order mark or NUL-byte detection; the uiautomator trailer line 'UI hierchary dumped to: "
    "/dev/tty' is transport noise and removed; the XML is otherwise unchanged."
)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_TRAILER = re.compile(r"(?<=</hierarchy>)UI hier\w* dumped to: [^\r\n]*(\r\n|\n)?\Z")


def decode_dump(raw: bytes) -> str:
    """Decode one dump file and drop the uiautomator trailer line.

    Args:
        raw: the file's bytes.

    Returns:
        The XML text, unchanged apart from the encoding mark and the trailer.
    """
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            text = raw[len(bom) :].decode(encoding)
            break
    else:
        head = raw[:4]
        if b"\x00" in head:
            text = raw.decode("utf-16-le" if head[1:2] == b"\x00" else "utf-16-be")
        else:
            text = raw.decode("utf-8")
    return _TRAILER.sub("", text, count=1)


def _provenance(name: str) -> Provenance:
    tag = "swiftapp__MT" if name.startswith("swiftapp__MT__") else name.split("__", 1)[0]
    if tag not in SOURCES:
        raise BadInputError(f"{PAIRS}: no provenance for dump {name}")
    return SOURCES[tag]


def inferred_action(pair: dict[str, Any]) -> str:
    """The android domain's `inferred` action wrapping the pair's description (never invented)."""
    return ANDROID.validate(
        json.dumps({"action_type": "inferred", "description": pair["action_description"]}),
        PromptContext(),
    )


def chains(pairs: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Group consecutive pairs whose `before` is the previous pair's `after`."""
    runs: list[list[dict[str, Any]]] = []
    for pair in pairs:
        if runs and runs[-1][-1]["after"] == pair["before"]:
            runs[-1].append(pair)
        else:
            runs.append([pair])
    return runs


def convert(root: Path) -> list[Trajectory]:
    """One action-inferred trajectory per chain of before/after pairs."""
    folder = root / FOLDER

    def dump(name: str) -> str:
        return decode_dump((folder / name).read_bytes())

    trajectories = []
    for run in chains(read_json(root / PAIRS)["pairs"]):
        first = run[0]["before"]
        names = [first] + [pair["after"] for pair in run]
        turns = [Turn(action=inferred_action(p), observation=dump(p["after"])) for p in run]
        trajectories.append(
            _provenance(first).trajectory(
                id=f"android/{Path(first).stem}/{Path(names[-1]).stem}",
                domain="android",
                path=first.split("__", 1)[1],
                files=[PAIRS] + [f"{FOLDER}/{name}" for name in names],
                turns=turns,
                initial_state=dump(first),
                action_inferred=True,
                notes=NOTES,
                metadata={
                    "dumps": names,
                    "inferred_from": [pair["action_inferred_from"] for pair in run],
                    "weak": [pair["weak"] for pair in run],
                },
            )
        )
    return trajectories
