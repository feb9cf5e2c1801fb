"""One person's playground session as plain data: the steps so far and what the recording knows.

Held in `gr.State` (one copy per browser tab); the durable copy is in SQL, written by the one
step path (`backend.stepping`). A session may start from a recorded trajectory: its first turns
become recorded steps, and for as long as the person types the recorded actions the real next
observation is known. What each earlier step shows the model is `backend.history`'s rule, the
same rule stored sessions and exports follow.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from backend.domains.base import get_domain
from backend.errors import AWPError
from backend.grounding.transitions import own_recording
from backend.history import state_before
from backend.provenance import Provenance
from backend.recording import NewSession
from backend.simulate import canonical
from backend.sources import turn_provenance
from backend.types import (
    HistoryMode,
    Prediction,
    PromptContext,
    ReferenceOrigin,
    SamplingParams,
    SimRequest,
    Trajectory,
    Turn,
)


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
        origin: where `real` comes from (recorded, live, annotator).
        prediction: the model's prediction (None for steps replayed from the recording).
        scores: metric values of the prediction against `real`, headline first.
        step_id: the stored step's id.
        prediction_id: the stored prediction's id (what annotations point at).
        provenance: where `real` came from (`backend.provenance`), None while it is unknown.
    """

    action: str
    real: str | None = None
    origin: ReferenceOrigin | None = None
    prediction: Prediction | None = None
    scores: tuple[Score, ...] = ()
    step_id: int | None = None
    prediction_id: int | None = None
    provenance: Provenance | None = None

    def turn(self) -> Turn:
        """The step as a history turn (its real observation and its prediction)."""
        predicted = self.prediction.observation if self.prediction else None
        return Turn(
            action=self.action,
            observation=self.real,
            predicted=predicted,
            provenance=self.provenance,
        )


@dataclass(frozen=True)
class LiveView:
    """What the live environment showed after the session's step `after` (0: at its start).

    Attributes:
        after: how many steps the session had when this was taken; shown only while it still
            has that many (a rewind leaves it behind).
        reward: the environment's reward for that step, where it has one.
        done: whether the environment ended the episode.
        screenshot: the page as a PNG, where the environment has a picture (the web page).
        problem: why no screenshot could be taken ("" when none was wanted or it was taken).
    """

    after: int
    reward: float | None = None
    done: bool = False
    screenshot: bytes | None = None
    problem: str = ""


@dataclass(frozen=True)
class PlaySession:
    """The state of one playground session.

    Attributes:
        domain: the domain name.
        trajectory: the recording the session started from, if any.
        initial_state: the observation before the first action.
        steps: the steps so far (recorded prefix included).
        session_id: the stored session, once its first step was stored.
        settings_key: engine, model, history mode and sampling the stored session uses.
        stored_steps: how many steps the stored session holds (more than `steps` after a rewind).
        fork: the next step starts a new session branching from this one (the Branch button).
        notice: a message about the session for the person (a branch, a clamp, a stop).
        live: the handle of the live environment the real states come from (the trajectory is
            then the live run's, stored as source `live:<domain>`).
        hybrid: with `live`, the domain's routing policy picks who answers each action: exact
            executors run in the live environment, the model answers the rest (never run).
        live_view: the live environment's reward, end and picture after the latest live step.
    """

    domain: str
    trajectory: Trajectory | None = None
    initial_state: str | None = None
    steps: tuple[PlayStep, ...] = ()
    session_id: int | None = None
    settings_key: tuple = ()
    stored_steps: int = 0
    fork: bool = False
    notice: str = ""
    live: str | None = None
    hybrid: bool = False
    live_view: LiveView | None = None

    def ran_live(self) -> list[str]:
        """The actions the live environment ran: all of them, but a hybrid session's predicted."""
        return [
            step.action
            for step in self.steps
            if not (self.hybrid and step.prediction and step.prediction.answered_by == "model")
        ]

    @classmethod
    def from_trajectory(cls, trajectory: Trajectory, start: int) -> PlaySession:
        """Start at turn `start` (0-based) of a recording: earlier turns become history.

        A start past the recording's end is clamped to its end, and the notice says so.
        """
        last = len(trajectory.turns)
        clamped = max(0, min(start, last))
        notice = ""
        if start > last:
            notice = (
                f"This recording has {last} turn{'s' if last != 1 else ''}, so it cannot start at "
                f"turn {start}: every recorded turn is history, and the next action is yours."
            )
        prefix = tuple(
            PlayStep(
                t.action,
                t.observation,
                "recorded" if t.observation is not None else None,
                provenance=turn_provenance(trajectory, i) if t.observation is not None else None,
            )
            for i, t in enumerate(trajectory.turns[:clamped])
        )
        return cls(trajectory.domain, trajectory, trajectory.initial_state, prefix, notice=notice)

    @property
    def context(self) -> PromptContext:
        """What the domain prompt is filled with: the recording's task and tool definitions."""
        return self.trajectory.prompt_context() if self.trajectory else PromptContext()

    def history(self) -> list[Turn]:
        """The steps as history turns (`backend.history` decides what each shows)."""
        return [step.turn() for step in self.steps]

    def previous_observation(self) -> str | None:
        """The state before the next action."""
        return state_before(self.history(), self.initial_state)

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

    def problem(self, action: str) -> str:
        """What is wrong with `action` in this domain ("" when it is valid)."""
        try:
            get_domain(self.domain).validate(action, self.context)
        except AWPError as exc:
            return str(exc)
        return ""

    def request(self, action: str, mode: HistoryMode, params: SamplingParams) -> SimRequest:
        """The self-contained request for the next action, in canonical text.

        The recording's next observation is its reference when the action is the recording's
        next one. Grounding never shows the session its own recording (`grounding_exclude`).

        Raises:
            BadActionError: the action does not follow the domain's format.
        """
        request = canonical(
            SimRequest(
                domain=self.domain,
                system_prompt=self.trajectory.system_prompt if self.trajectory else None,
                context=self.context,
                initial_state=self.initial_state,
                history=self.history(),
                action=action,
                history_mode=mode,
                params=params,
                grounding_exclude=own_recording(self.trajectory.id if self.trajectory else None),
            )
        )
        turn = self.recorded_next()
        if turn is not None and self._same_action(request.action, turn.action):
            source = turn_provenance(self.trajectory, len(self.steps))  # type: ignore[arg-type]
            return request.model_copy(
                update={"reference": turn.observation, "reference_provenance": source}
            )
        return request

    def new_session(
        self, kind: str, owner: str, mode: HistoryMode, params: SamplingParams
    ) -> NewSession:
        """The stored session this play session's next step starts, with its engine settings."""
        trajectory = self.trajectory
        return NewSession(
            domain=self.domain,
            history_mode=mode,
            params=params,
            kind=kind,
            owner=owner,
            base_trajectory_id=trajectory.id if trajectory else None,
            system_prompt=trajectory.system_prompt if trajectory else None,
            context=self.context,
            initial_state=self.initial_state,
        )

    def real_for(self, action: str) -> str | None:
        """The real observation after `action`, known when it is the recording's next action."""
        turn = self.recorded_next()
        if turn is None:
            return None
        try:
            ours = get_domain(self.domain).validate(action, self.context)
        except AWPError:
            return None
        return turn.observation if self._same_action(ours, turn.action) else None

    def _same_action(self, ours: str, recorded: str) -> bool:
        """Whether a canonical action is the recording's (compared in canonical text)."""
        try:
            theirs = get_domain(self.domain).validate(recorded, self.context)
        except AWPError:
            theirs = recorded.strip()
        return ours == theirs

    def rewound(self, keep: int) -> PlaySession:
        """A copy that keeps the first `keep` steps (a later step branches the stored session)."""
        kept = max(0, min(keep, len(self.steps)))
        return replace(self, steps=self.steps[:kept], notice="")
