"""What the step path hands to storage: sessions to create, steps to store, the recorder protocol.

The backend never touches SQL; `storage.sessions.SessionStore` implements `Recorder`. Every caller
of the step path (the CLI, the Playground and Replay pages, `awp bench`, environments) records
through this one protocol, so a step is stored the same way whoever takes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from backend.provenance import Provenance
from backend.spec import WorldSpec
from backend.types import (
    AnsweredBy,
    HistoryMode,
    Prediction,
    PromptContext,
    ReferenceOrigin,
    SamplingParams,
    SimRequest,
    Trajectory,
    Turn,
)


class ScoreLike(Protocol):
    """Anything shaped like `backend.scoring.MetricResult`: a named, versioned value."""

    @property
    def name(self) -> str:
        """Metric (or judge dimension) name."""
        ...

    @property
    def version(self) -> Any:
        """Metric version; stored as text."""
        ...

    @property
    def value(self) -> float:
        """The score, normally in [0, 1]."""
        ...

    @property
    def details(self) -> Mapping[str, Any] | None:
        """JSON-serialisable detail (matched nodes, judge reasoning, ...)."""
        ...


@dataclass(frozen=True)
class StoredScore:
    """A plain named, versioned score (satisfies ScoreLike): a stored metric or judge dimension."""

    name: str
    version: str
    value: float
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class NewSession:
    """A session to create together with its first stored step (never an empty session).

    Attributes:
        domain: the domain name.
        history_mode: the history mode of its predictions.
        params: its sampling parameters.
        kind: what makes it: playground, replay, cli, bench (`storage.models.SessionKind`).
        owner: who runs it (None for the CLI).
        engine: engine name; empty means the first prediction's.
        model: model id; empty means the first prediction's.
        base_trajectory_id: the stored recording it starts from, if any.
        system_prompt: a custom system prompt (None: the domain's, filled from `context`).
        context: the task and tool definitions its prompts are filled with.
        initial_state: the observation before the first action, if known.
        bench_run_id: the benchmark run it belongs to.
        parent_session_id: the session it branches from (its steps before `branched_at` are
            shared, not copied).
        branched_at: how many of the parent's steps it keeps.
        complete: False for an episode that has not ended yet (`Recorder.end_session` ends
            it); a killed process leaves its episode incomplete, and exports leave it out.
        world: the resolved world spec its predictions are made in (stored as
            `session.world`); None where the simulator was built outside the composition root.
    """

    domain: str
    history_mode: HistoryMode
    params: SamplingParams
    kind: str = "playground"
    owner: str | None = None
    engine: str = ""
    model: str = ""
    base_trajectory_id: str | None = None
    system_prompt: str | None = None
    context: PromptContext = field(default_factory=PromptContext)
    initial_state: str | None = None
    bench_run_id: int | None = None
    parent_session_id: int | None = None
    branched_at: int | None = None
    complete: bool = True
    world: WorldSpec | None = None

    @classmethod
    def for_request(cls, request: SimRequest, kind: str, **extra: Any) -> NewSession:
        """The session a request's prompt settings belong to."""
        return cls(
            domain=request.domain,
            history_mode=request.history_mode,
            params=request.params,
            kind=kind,
            system_prompt=request.system_prompt,
            context=request.context,
            initial_state=request.initial_state,
            **extra,
        )


@dataclass(frozen=True)
class StepInput:
    """One step to store.

    Attributes:
        action: the canonical action text.
        real: the real observation after it, when known.
        origin: where `real` comes from (recorded, live, annotator); None without one.
        prediction: the engine's prediction (with the exact messages it was made from).
        scores: metric results of the prediction against `real`.
        params: the sampling parameters of the prediction.
        history_mode: the history mode of the prediction.
        answered_by: who answered the step, i.e. whose observation the session goes on from:
            the model (sim), the record, an exact executor or the live environment (live and
            shadow); None for a recorded turn copied in as history.
        provenance: where `real` came from (`backend.provenance`); required with `real`,
            storage refuses a real observation without it.
    """

    action: str
    real: str | None = None
    origin: ReferenceOrigin | None = None
    prediction: Prediction | None = None
    scores: Sequence[ScoreLike] = ()
    params: SamplingParams | None = None
    history_mode: HistoryMode | None = None
    answered_by: AnsweredBy | None = None
    provenance: Provenance | None = None


@dataclass(frozen=True)
class StepRecord:
    """What a recorder committed: ids to show the user and to link later writes."""

    session_id: int
    step_id: int
    prediction_id: int | None
    index: int


SessionTarget = int | NewSession
"""A stored session's id, or a session to create with the step."""


def in_world(target: SessionTarget, world: WorldSpec | None) -> SessionTarget:
    """`target`, stating the world its steps are predicted in when it is a session to create.

    A session that already names its world keeps it; a stored session (an id) has its own.
    """
    if isinstance(target, NewSession) and target.world is None and world is not None:
        return replace(target, world=world)
    return target


class Recorder(Protocol):
    """Stores steps as they happen; each call is committed before it returns."""

    def record(
        self, target: SessionTarget, step: StepInput, prefix: Sequence[Turn] = ()
    ) -> StepRecord:
        """Append `prefix` (earlier turns not stored yet) and `step` to a session, atomically.

        Raises:
            NotFoundError: `target` names a session that does not exist.
        """
        ...

    def end_session(self, session_id: int) -> None:
        """Mark a session created incomplete (an episode) as ended; committed on return."""
        ...

    def record_many(self, items: Sequence[tuple[SessionTarget, StepInput]]) -> list[StepRecord]:
        """Store many steps (each of its own session, or several of one) in ONE transaction.

        How a vector environment stores its step: N sessions' next steps, one commit. Steps of
        one session are stored in the order given.

        Raises:
            NotFoundError: a target names a session that does not exist (nothing is stored).
        """
        ...

    def add_prediction(
        self,
        step_id: int,
        prediction: Prediction,
        scores: Sequence[ScoreLike] = (),
        *,
        params: SamplingParams | None = None,
        history_mode: HistoryMode | None = None,
    ) -> int:
        """Store another prediction of an existing step; returns its id."""
        ...

    def add_scores(self, prediction_id: int, scores: Sequence[ScoreLike]) -> None:
        """Store more scores of a prediction (a judge's verdict)."""
        ...


class TrajectorySink(Protocol):
    """Keeps real trajectories (live runs) as ground truth, replacing an earlier copy by id."""

    def upsert(self, trajectory: Trajectory) -> None:
        """Store `trajectory`, or replace the stored one of the same id; committed at once."""
        ...
