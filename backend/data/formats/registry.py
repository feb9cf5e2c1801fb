"""The registry of trajectory file formats: each format's name, reader, suffixes and help line.

Apart from the package module, which the readers import for what they share
(`backend.data.formats`): the registry imports the readers, so kept there it made a cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from backend.data.formats import atif, inspect_log, otel
from backend.registry import Registry
from backend.types import Trajectory

Reader = Callable[[Path, str | None], list[Trajectory]]
"""(file, domain or None to infer) -> trajectories; raises BadInputError naming bad records."""


@dataclass(frozen=True)
class TrajectoryFormat:
    """A registered trajectory file format.

    Attributes:
        name: the `awp import` subcommand and `--format` value.
        read: the reader.
        suffixes: the file name endings it reads.
        description: one line for help texts.
    """

    name: str
    read: Reader
    suffixes: tuple[str, ...]
    description: str


def _formats() -> Registry[TrajectoryFormat]:
    registry: Registry[TrajectoryFormat] = Registry("trajectory format")
    for fmt in (
        TrajectoryFormat(
            "atif", atif.read, (".json", ".jsonl"), "Harbor's Agent Trajectory Interchange Format."
        ),
        TrajectoryFormat(
            "inspect",
            inspect_log.read,
            (".eval", ".json"),
            "Inspect AI eval logs: each sample's tool calls and results.",
        ),
        TrajectoryFormat(
            "otel",
            otel.read,
            (".jsonl",),
            "OpenTelemetry GenAI spans (JSONL, one span a line): each trace's execute_tool spans.",
        ),
    ):
        registry.register(fmt.name, fmt)
    return registry


TRAJECTORY_FORMATS = _formats()
