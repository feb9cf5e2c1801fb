"""One person's playground session as plain data: the steps so far and what the recording knows.

Held in `gr.State` (one copy per browser tab); the durable copy is in SQL via `SessionStore`.
A session may start from a recorded trajectory: its first turns become recorded steps, and for as
long as the person types the recorded actions the real next observation is known. Once they
leave the recording, the model's prediction stands in for reality in the history.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from backend.domains.base import PromptContext, get_domain
from backend.errors import AWPError
from backend.types import HistoryMode, Prediction, SamplingParams, SimRequest, Trajectory, Turn

RECORDED = "recorded"


@dataclass(frozen=True)
class Score:
    """A metric value as shown on a step (name, value in [0, 1])."""

    name: str
    value: float


@dataclass(frozen=True)
class PlayStep:
    """One action and what followed it.

    Attributes:
        action: the canonical action text.
        real: the real observation after it, when known.
        prediction: the model's prediction (None for steps replayed from the recording).
        scores: metric values of the prediction against `real`.
        step_id: the stored step's id.
        prediction_id: the stored prediction's id (what annotations point at).
    """

    action: str
    real: str | None = None
    prediction: Prediction | None = None
    scores: tuple[Score, ...] = ()
    step_id: int | None = None
    prediction_id: int | None = None

    @property
    def shown(self) -> str | None:
        """The observation that follows this step in the session: the real one, else predicted."""
        if self.real is not None:
            return self.real
        return self.prediction.observation if self.prediction else None


@dataclass(frozen=True)
class PlaySession:
    """The state of one playground session.

    Attributes:
        domain: the domain name.
        trajectory: the recording the session started from, if any.
        initial_state: the observation before the first action.
        steps: the steps so far (recorded prefix included).
        session_id: the stored session, once the first step was stored.
        settings_key: engine, model, history mode and sampling the stored session uses.
        stored_steps: how many steps the stored session holds (more than `steps` after a rewind).
    """

    domain: str
    trajectory: Trajectory | None = None
    initial_state: str | None = None
    steps: tuple[PlayStep, ...] = ()
    session_id: int | None = None
    settings_key: tuple = ()
    stored_steps: int = 0

    @classmethod
    def from_trajectory(cls, trajectory: Trajectory, start: int) -> PlaySession:
        """Start at turn `start` (0-based) of a recording: earlier turns become history."""
        start = max(0, min(start, len(trajectory.turns)))
        prefix = tuple(PlayStep(t.action, t.observation) for t in trajectory.turns[:start])
        return cls(trajectory.domain, trajectory, trajectory.initial_state, prefix)

    @property
    def context(self) -> PromptContext:
        """What the domain prompt is filled with: the recording's task and tool definitions."""
        if self.trajectory is None:
            return PromptContext()
        tools = self.trajectory.metadata.get("tools")
        return PromptContext(tools=tools if isinstance(tools, list) else None,
                             task=self.trajectory.task or None)  # fmt: skip

    def history(self) -> list[Turn]:
        """The steps as history turns; a step off the recording shows its prediction as reality."""
        return [
            Turn(
                action=s.action,
                observation=s.shown,
                predicted=s.prediction.observation if s.prediction else None,
            )
            for s in self.steps
        ]

    def previous_observation(self) -> str | None:
        """The observation before the next action."""
        return self.steps[-1].shown if self.steps else self.initial_state

    def on_recording(self) -> bool:
        """Tell whether every step so far followed the recording, so its next turn still applies.

        Real observations in a playground session only ever come from the recording, so a step
        without one is where the session left it.
        """
        if self.trajectory is None or len(self.steps) >= len(self.trajectory.turns):
            return False
        return all(step.real is not None for step in self.steps)

    def recorded_next(self) -> Turn | None:
        """The recording's next turn while the session is on it, else None."""
        if not self.on_recording():
            return None
        return self.trajectory.turns[len(self.steps)]  # type: ignore[union-attr]

    def canonical(self, action: str) -> str:
        """The action as the domain's validator writes it; unparsable actions stay as typed."""
        try:
            return get_domain(self.domain).validate(action, self.context)
        except AWPError:
            return action.strip()

    def problem(self, action: str) -> str:
        """What is wrong with `action` in this domain ("" when it is valid)."""
        try:
            get_domain(self.domain).validate(action, self.context)
        except AWPError as exc:
            return str(exc)
        return ""

    def real_for(self, action: str) -> str | None:
        """The real observation after `action`, known when it is the recording's next action."""
        turn = self.recorded_next()
        if turn is None or self.canonical(action) != self.canonical(turn.action):
            return None
        return turn.observation

    def request(
        self, action: str, mode: HistoryMode, params: SamplingParams, reference: str | None
    ) -> SimRequest:
        """The simulation request for the next action."""
        system = self.trajectory.system_prompt if self.trajectory else None
        return SimRequest(
            domain=self.domain,
            system_prompt=system,
            initial_state=self.initial_state,
            history=self.history(),
            action=action,
            history_mode=mode,
            params=params,
            reference=reference,
        )

    def with_step(self, step: PlayStep) -> PlaySession:
        """A copy with `step` appended."""
        return replace(self, steps=(*self.steps, step))

    def rewound(self, keep: int) -> PlaySession:
        """A copy that keeps the first `keep` steps (the stored session is branched separately)."""
        return replace(self, steps=self.steps[: max(0, keep)])
