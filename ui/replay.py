"""Replay service: run a whole recording through an engine, teacher-forced or closed loop.

Each turn is one playground step on the recorded action, so the run is stored as a session (its
predictions join the annotation queue) and scored against the recorded observation as it goes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from backend.scoring import headline_metric
from backend.types import Trajectory
from ui.play import Done, Playground
from ui.services import EngineChoice
from ui.session import PlaySession


@dataclass(frozen=True)
class ReplayState:
    """What the Replay page holds per browser tab.

    Attributes:
        trajectory: the recording being replayed.
        run: the latest run over it (steps with predictions), if any.
        label: the run's engine and history mode.
    """

    trajectory: Trajectory | None = None
    run: PlaySession | None = None
    label: str = ""

    def headline_values(self) -> list[float | None]:
        """Each turn's headline score in the latest run (None where not run or not scored)."""
        if self.trajectory is None:
            return []
        name = headline_metric(self.trajectory.domain)
        steps = self.run.steps if self.run else ()
        values: list[float | None] = [
            next((s.value for s in step.scores if s.name == name), None) for step in steps
        ]
        return values + [None] * (len(self.trajectory.turns) - len(values))


def run_trajectory(
    playground: Playground, trajectory: Trajectory, choice: EngineChoice, owner: str
) -> Iterator[PlaySession]:
    """Predict every turn of `trajectory` in order, yielding the run after each stored turn.

    Raises:
        BadActionError: a recorded action does not parse in its domain (the run stops there).
    """
    session = PlaySession.from_trajectory(trajectory, 0)
    for turn in trajectory.turns:
        for event in playground.step(session, turn.action, choice, owner):
            if isinstance(event, Done):
                session = event.session
        yield session
