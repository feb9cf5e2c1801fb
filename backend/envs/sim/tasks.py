"""Where episodes start: the bundled recordings, a file of tasks, a live environment's tasks.

`--tasks bundled` (the default) starts from the bundled recordings of the domain: their task,
tools and initial state, with the recording as the per-step reference and the source of the
`replay` agent's actions. `live` starts from the live environment's named tasks, `checked` from
those of them with a success check (what the honesty meter and the leaderboard need). `blank` is one
episode with no task and no state. Any other value is a JSONL file: one recorded trajectory
(`backend.types.Trajectory` JSON, optionally with the `live_task` it starts from) or
`{"domain", "task", "initial_state", "live_task"}` a line.
"""

from __future__ import annotations

import json
from pathlib import Path

from backend.data.bundled import load_bundled
from backend.envs.live.base import live_kind
from backend.envs.sim.episode import EpisodeSpec
from backend.errors import BadInputError
from backend.types import Trajectory


def _from_line(line: str, domain: str) -> EpisodeSpec | None:
    value = json.loads(line)
    if not isinstance(value, dict):
        raise BadInputError("Each task line must be a JSON object.")
    if "turns" in value:
        trajectory = Trajectory.model_validate(value)
        if trajectory.domain != domain:
            return None
        return EpisodeSpec.from_trajectory(trajectory, value.get("live_task"))
    if value.get("domain", domain) != domain:
        return None
    return EpisodeSpec(
        domain=domain,
        task=str(value.get("task", "")),
        initial_state=value.get("initial_state"),
        live_task=value.get("live_task"),
    )


def episode_specs(domain: str, tasks: str = "bundled") -> list[EpisodeSpec]:
    """The episode starts of `domain` that `tasks` names (see the module docstring).

    Raises:
        BadInputError: no start of that domain, or a file that cannot be read.
    """
    if tasks == "bundled":
        specs = [EpisodeSpec.from_trajectory(t) for t in load_bundled() if t.domain == domain]
    elif tasks == "blank":
        specs = [EpisodeSpec(domain=domain)]
    elif tasks in ("live", "checked"):
        specs = [
            EpisodeSpec(domain=domain, task=task.goal, live_task=task.name)
            for task in live_kind(domain).tasks()
            if tasks == "live" or task.check is not None
        ]
    else:
        path = Path(tasks)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
            found = [_from_line(line, domain) for line in lines if line.strip()]
        except (OSError, ValueError) as exc:
            raise BadInputError(f"Cannot read tasks from {path}: {exc}") from exc
        specs = [spec for spec in found if spec is not None]
    if not specs:
        raise BadInputError(f"No {domain} episode starts in tasks {tasks!r}.")
    return specs
