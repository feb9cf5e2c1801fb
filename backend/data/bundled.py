"""The bundled sample trajectories: real recorded transitions in all seven domains.

They ship inside the package (built by `scripts/build_bundled.py`) so that the playground has
something real to replay with no download and no access to the recorded-data folder.
"""

from __future__ import annotations

from importlib import resources

from pydantic import BaseModel, Field

from backend.types import Trajectory

BUNDLED_FILE = "bundled/recorded.jsonl"


class DomainSummary(BaseModel):
    """What the bundled set holds for one domain."""

    trajectories: int = 0
    turns: int = 0
    sources: list[str] = Field(default_factory=list)


def load_bundled() -> list[Trajectory]:
    """Read every bundled trajectory (one JSON object per line, split on newlines only)."""
    text = resources.files("backend.data").joinpath(BUNDLED_FILE).read_text(encoding="utf-8")
    return [Trajectory.model_validate_json(line) for line in text.split("\n") if line.strip()]


def bundled_summary() -> dict[str, DomainSummary]:
    """Trajectory and turn counts and source repositories per domain, domains sorted by name."""
    summary: dict[str, DomainSummary] = {}
    for trajectory in load_bundled():
        entry = summary.setdefault(trajectory.domain, DomainSummary())
        entry.trajectories += 1
        entry.turns += len(trajectory.turns)
        repo = trajectory.source.split(":", 1)[0]
        if repo not in entry.sources:
            entry.sources.append(repo)
    return dict(sorted(summary.items()))
