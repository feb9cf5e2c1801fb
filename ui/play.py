"""The playground's service: start sessions, run a streamed step through the one step path.

Callbacks stay a few lines because the work lives here. A step builds its self-contained request
(the action in canonical text, the recording's next observation as reference when it applies),
picks where it is stored (this session, a new one, or a new branch after a rewind or a change of
engine settings) and runs `backend.stepping.run_step`, which streams, scores and commits.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

from backend.envs.live.base import LiveStep
from backend.envs.live.run import LiveRun
from backend.errors import BadInputError, EngineRequestError, LiveEnvironmentError
from backend.recording import SessionTarget
from backend.sources import reference_provenance
from backend.spec import Purpose
from backend.stepping import Reality, StepOutcome, run_step
from backend.types import SimRequest, Turn
from storage.models import SessionKind
from ui.services import EngineChoice, Services
from ui.session import LiveView, PlaySession, PlayStep, Score


@runtime_checkable
class Preparable(Protocol):
    """An engine with a slow first use (the embedded model is converted and loaded)."""

    @property
    def ready(self) -> bool:
        """Whether the model is loaded."""
        ...

    def prepare(self) -> None:
        """Load the model now."""
        ...


def live_closure(view: LiveView) -> str:
    """The live environment's verdict on the step: its reward, and whether the episode ended."""
    reward = "no reward signal" if view.reward is None else f"reward {view.reward:g}"
    done = "the episode is done" if view.done else "the episode goes on"
    return f"Live: {reward}, {done}."


def live_view(run: LiveRun, after: int, step: LiveStep | None = None) -> LiveView:
    """The live environment's reward and end after `step`, with a picture where it has one.

    A screenshot that fails costs the step nothing: the view says why there is none.
    """
    reward, done = (step.reward, step.done) if step is not None else (None, False)
    try:
        picture = run.screenshot()
    except LiveEnvironmentError as error:
        return LiveView(after, reward, done, problem=f"No screenshot of the page: {error}")
    return LiveView(after, reward, done, picture)


@dataclass(frozen=True)
class Preparing:
    """The engine is loading its model before the step can start."""

    message: str


@dataclass(frozen=True)
class Partial:
    """The prediction so far, while it streams, with the request it answers."""

    request: SimRequest
    index: int
    text: str
    reasoning: str


@dataclass(frozen=True)
class Done:
    """The finished, stored step: the session now ends with it."""

    session: PlaySession


class Playground:
    """Session operations over the simulator and the session store.

    Args:
        services: the app's services.
        kind: what the sessions it stores are called (the Playground or the Replay page).
    """

    def __init__(self, services: Services, kind: SessionKind = SessionKind.PLAYGROUND) -> None:
        self.services = services
        self.kind = kind

    def start(self, domain: str, trajectory_id: str | None, start: int) -> PlaySession:
        """A new session: at turn `start` of a stored recording, or blank when none is given."""
        if not trajectory_id:
            return PlaySession(domain)
        trajectory = self.services.trajectories.get(trajectory_id)
        if trajectory.domain != domain:
            raise BadInputError(f"Trajectory {trajectory_id} is not in the {domain} domain.")
        return PlaySession.from_trajectory(trajectory, start)

    def step(
        self, session: PlaySession, action: str, choice: EngineChoice, owner: str
    ) -> Iterator[Preparing | Partial | Done]:
        """Build the request, stream the prediction, then score and store it.

        Raises:
            BadActionError: the action does not follow the domain's format (nothing is sent).
            EngineUnavailableError, EngineRequestError: the engine failed (nothing is stored).
        """
        request = session.request(action, choice.history_mode, choice.params)
        services = self.services
        world = choice.world(services.world_spec, Purpose.PLAYGROUND, session.hybrid)
        simulator = services.simulator(world)
        engine = simulator.engine
        if isinstance(engine, Preparable) and not engine.ready:
            yield Preparing(
                f"Preparing the {engine.name} model ({engine.model}) for its first use: it is "
                "converted and loaded once, which takes up to a minute on a CPU."
            )
            engine.prepare()
        target, prefix, notice = self._target(session, choice, owner)
        with self._reality(session) as (live, replayed, acted, run):
            notice = " ".join(filter(None, [replayed, notice]))
            index = len(session.steps) + 1
            text, reasoning = "", ""
            outcome: StepOutcome | None = None
            yield Partial(request, index, text, reasoning)
            steps = run_step(
                simulator, self.services.sessions, target, request, prefix, live, session.hybrid
            )
            for item in steps:
                if isinstance(item, StepOutcome):
                    outcome = item
                    continue
                text += item.content_delta
                reasoning += item.reasoning_delta
                yield Partial(request, index, text, reasoning)
            if outcome is None:
                raise EngineRequestError("The engine ended its stream without a prediction.")
            view = None
            if run is not None and acted and not outcome.live_error:
                view = live_view(run, index, acted[-1])
        if outcome.live_error:
            notice = (
                f"The live environment failed ({outcome.live_error}); the step is stored "
                f"without a real state. {notice}"
            )
        yield Done(replace(self._after(session, outcome, choice, notice), live_view=view))

    def start_live(
        self, domain: str, task: str | None, owner: str, hybrid: bool = False
    ) -> PlaySession:
        """A new session whose real states come from a live environment started at `task`.

        With `hybrid`, only the actions the domain's routing policy sends to an exact executor
        run in it; the model answers the others.

        Raises:
            LiveEnvironmentError: live environments are off, all busy, or this one cannot run.
            UnknownNameError: no such task.
        """
        pool = self.services.live
        if pool is None:
            raise LiveEnvironmentError("Live environments are switched off on this server.")
        handle, run = pool.open(owner, domain, task or None)
        trajectory = run.trajectory()
        self.services.trajectories.upsert(trajectory)
        goal = f" The agent's task: {trajectory.task}" if trajectory.task else ""
        mode = " Hybrid: exact executors where the domain allows, the model elsewhere." * hybrid
        notice = (
            f"Live {domain} environment started at task {run.task}.{goal}{mode} ({run.env.version})"
        )
        return PlaySession(
            domain,
            trajectory,
            run.initial_state or None,
            live=handle,
            notice=notice,
            hybrid=hybrid,
            live_view=live_view(run, 0),
        )

    @contextmanager
    def _reality(
        self, session: PlaySession
    ) -> Iterator[tuple[Reality | None, str, list[LiveStep], LiveRun | None]]:
        """The live environment a step runs its action in (None off live), held for the step.

        Also yields what was replayed, the live steps the action produced (their reward and
        whether the episode ended are what the page shows after the step), and the run itself
        (for its picture, taken while the step still holds it).

        A live environment that took other actions than the session's kept steps (after a
        rewind or branch, or a failed step) first replays the kept ones from its task's start.
        After the step, the run's trajectory is stored again with the new turn.
        """
        if session.live is None:
            yield None, "", [], None
            return
        pool = self.services.live
        if pool is None:
            raise LiveEnvironmentError("Live environments are switched off on this server.")
        run, lock = pool.use(session.live)
        with lock:
            kept = session.ran_live()
            replayed = ""
            if [turn.action for turn in run.turns] != kept:
                run.replay(kept)
                replayed = (
                    f"Restarted the live environment and replayed the {len(kept)} kept actions."
                )
            acted: list[LiveStep] = []

            def act(action: str) -> str:
                acted.append(run.act(action))
                return acted[-1].observation

            try:
                yield act, replayed, acted, run
            finally:
                self.services.trajectories.upsert(run.trajectory())

    def _target(
        self, session: PlaySession, choice: EngineChoice, owner: str
    ) -> tuple[SessionTarget, list[Turn], str]:
        """Where the next step is stored, the steps to store before it, and what to tell.

        A stored session fixes its engine settings and its steps, so a step taken after a rewind,
        after Branch, or with other settings goes to a new session branching from it, and the
        earlier session stays as it was.
        """
        new = session.new_session(self.kind.value, owner, choice.history_mode, choice.params)
        if session.session_id is None:
            return new, session.history(), ""
        same = session.settings_key == choice.key
        if same and not session.fork and session.stored_steps == len(session.steps):
            return session.session_id, [], ""
        at = len(session.steps)
        if not same:
            why = "The engine settings changed"
        elif session.fork:
            why = "You branched"
        else:
            why = "You rewound"
        branch = replace(new, parent_session_id=session.session_id, branched_at=at)
        note = f"{why}, so this step started a new session branching from #{session.session_id}"
        return branch, [], f"{note} after its step {at}; #{session.session_id} stays as it was."

    def _after(
        self, session: PlaySession, outcome: StepOutcome, choice: EngineChoice, notice: str
    ) -> PlaySession:
        """The session with the stored step appended."""
        request = outcome.request
        step = PlayStep(
            outcome.prediction.action,
            request.reference,
            request.reference_origin if request.reference is not None else None,
            outcome.prediction,
            tuple(Score(r.name, r.value) for r in outcome.scores.results),
            outcome.step_id,
            outcome.prediction_id,
            reference_provenance(request),
        )
        steps = (*session.steps, step)
        return replace(
            session,
            steps=steps,
            session_id=outcome.session_id,
            settings_key=choice.key,
            stored_steps=len(steps),
            fork=False,
            notice=notice,
        )

    @staticmethod
    def branch(session: PlaySession, at: int) -> PlaySession:
        """Keep the first `at` steps; the next step starts a new session branching from this one."""
        kept = session.rewound(at)
        if session.session_id is None:
            return replace(kept, notice=f"Kept {len(kept.steps)} steps; nothing is stored yet.")
        return replace(
            kept,
            fork=True,
            notice=(
                f"Branch ready: your next step starts a new session that keeps the first "
                f"{len(kept.steps)} steps of #{session.session_id}, which stays as it was."
            ),
        )

    @staticmethod
    def rewind(session: PlaySession, keep: int) -> PlaySession:
        """Keep the first `keep` steps; a stored session is branched by the next step."""
        kept = session.rewound(keep)
        if session.session_id is None or len(kept.steps) == session.stored_steps:
            return replace(kept, notice=f"Showing the first {len(kept.steps)} steps.")
        return replace(
            kept,
            notice=(
                f"Rewound to step {len(kept.steps)}. Your next step starts a new session that "
                f"branches from #{session.session_id}, which stays as it was."
            ),
        )
