"""What the pages call: the simulator factory, the stores and the defaults, in one container.

`app.web` builds a `Services` from the app context; pages receive it and never build services
themselves, so tests can hand in the same objects over a temporary database.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from backend.compare.agreement_report import AgreementReport
from backend.compare.contenders import Contender
from backend.domains.prompts import PromptLibrary
from backend.engines.base import Engine, engine_spec

# Re-exported: the pages that resolve a model box themselves import the rule from here.
from backend.engines.base import chosen_model as chosen_model
from backend.envs.live.pool import LivePool
from backend.errors import BadInputError
from backend.export.records import ExportContext, ExportRecord
from backend.fair_use import FairUse
from backend.jobs import JobRegistry
from backend.scoring.judge import Judge, JudgeItem
from backend.simulate import Simulator
from backend.spec import Purpose, WorldSpec
from backend.training.config import TrainConfig
from backend.types import HistoryMode, SamplingParams
from storage.annotations import (
    AnnotationQueue,
    AnnotationStore,
    AnnotatorProgress,
    DomainProgress,
)
from storage.arena import ArenaStore
from storage.export_source import ExportQuery
from storage.runs import RunStore
from storage.sessions import SessionStore
from storage.trajectories import TrajectoryStore
from ui.users import AccessDeniedError, Identify, User

SimulatorFactory = Callable[[WorldSpec], Simulator]
"""A resolved world spec -> the simulator of that world (`AppContext.simulator`)."""


class WorldSpecFactory(Protocol):
    """Resolves a world spec for a purpose from what a page asks (`AppContext.world_spec`).

    What is left out (None, or a blank engine, model or URL) is the configured value; a page
    hands its model box over as typed.
    """

    def __call__(
        self,
        purpose: Purpose,
        *,
        engine: str | None = None,
        model: str | None = None,
        base_url: str | None = None,
        sampling: SamplingParams | None = None,
        history_mode: HistoryMode | None = None,
        grounding: bool | None = None,
        record_answers: bool | None = None,
        hybrid: bool = False,
    ) -> WorldSpec:
        """The resolved spec."""
        ...


class JudgeSpecFactory(Protocol):
    """The judge's resolved spec (`AppContext.judge_spec`), stored with a judged run."""

    def __call__(self, name: str | None = None, model: str | None = None) -> WorldSpec:
        """The judge on engine `name` (the configured one when None)."""
        ...


EngineFactory = Callable[[str, str | None, str | None], Engine]
"""The same arguments -> the (cached) engine itself, e.g. to act as a judge."""


class JudgeFactory(Protocol):
    """Builds the rubric judge (`app.context.AppContext.judge`).

    With no engine name the configured judge (`AWP_JUDGE_*`), else the named engine; a model
    left out or blank means the same everywhere (`AppContext.judge_spec`).
    """

    def __call__(self, name: str | None = None, model: str | None = None) -> Judge:
        """The judge on engine `name` (the configured one when None)."""
        ...


class ModelSlot:
    """The model folder the Playground's transformers engine uses unless a person picks one.

    Set from the Train page ("make this the Playground's model"); it lasts until the server
    stops (set `AWP_MODEL` to keep it).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._path: str | None = None

    @property
    def path(self) -> str | None:
        """The chosen folder, or None for the configured model."""
        with self._lock:
            return self._path

    def set(self, path: str) -> None:
        """Make `path` the Playground's model."""
        with self._lock:
            self._path = path


@dataclass(frozen=True)
class EngineChoice:
    """The engine settings a person picked for the next step.

    Attributes:
        engine: engine registry name.
        model: model id; "" for the configured one (see `chosen_model`).
        base_url: OpenAI-compatible server URL (openai engine).
        history_mode: which observations the model sees as history.
        params: sampling parameters.
    """

    engine: str
    model: str = ""
    base_url: str = ""
    history_mode: HistoryMode = HistoryMode.TEACHER_FORCED
    params: SamplingParams = field(default_factory=SamplingParams)

    @classmethod
    def from_controls(
        cls,
        engine: str,
        model: str,
        base_url: str,
        history_mode: str,
        temperature: float,
        top_p: float,
        top_k: float,
        max_new_tokens: float,
        seed: float | None,
    ) -> EngineChoice:
        """Build a choice from the engine panel's widget values.

        Raises:
            BadInputError: a sampling value is out of range.
        """
        try:
            params = SamplingParams(
                temperature=temperature,
                top_p=top_p,
                top_k=int(top_k),
                max_new_tokens=int(max_new_tokens),
                seed=None if seed is None or seed < 0 else int(seed),
            )
        except ValidationError as exc:
            problems = "; ".join(f"{e['loc'][0]}: {e['msg']}" for e in exc.errors())
            raise BadInputError(f"Invalid sampling settings: {problems}.") from None
        return cls(
            engine,
            (model or "").strip(),
            (base_url or "").strip(),
            HistoryMode(history_mode),
            params,
        )

    def world(
        self, world_spec: WorldSpecFactory, purpose: Purpose, hybrid: bool = False
    ) -> WorldSpec:
        """This choice resolved as a world spec for `purpose` (the box's blanks: the settings)."""
        return world_spec(
            purpose,
            engine=self.engine,
            model=self.model,
            base_url=self.base_url,
            sampling=self.params,
            history_mode=self.history_mode,
            hybrid=hybrid,
        )

    @property
    def key(self) -> tuple:
        """What a stored session fixes: changing any of it starts a branch."""
        return (self.engine, self.model, self.history_mode, self.params)


@dataclass(frozen=True)
class Progress:
    """Annotation progress readers.

    Attributes:
        annotators: per annotator and domain; one annotator's rows when a name is given.
        domains: coverage of each domain's predictions.
    """

    annotators: Callable[[str | None], list[AnnotatorProgress]]
    domains: Callable[[], list[DomainProgress]]


@dataclass(frozen=True)
class Services:
    """Everything the UI needs, built once per app.

    Attributes:
        world_spec: resolves a world spec for a purpose from a page's request.
        simulator: builds the simulator of a resolved world spec, over cached engines.
        engine: builds (cached) engines.
        data_dir: where benchmark runs and exports are written.
        defaults: the engine settings a new browser tab starts with.
        engines: engine names offered in the engine menus.
        trajectories: stored trajectories (the bundled recordings are loaded at start).
        sessions: the session recorder.
        runs: benchmark, training and rollout runs, listed on their pages.
        queue: the annotation review queue.
        annotations: the annotation store.
        progress: annotation progress readers.
        export_records: stored predictions (and annotations) as export records.
        export_context: what building export rows needs (default system prompts).
        can_push: a Hugging Face token is configured, so exports can be pushed to the Hub.
        identify: the user behind a request.
        arena: "Which one is real?" and arena votes.
        agreement: reads the judge-versus-people agreement report.
        contenders: what arena battles draw from.
        judge: builds the rubric judge: with no arguments the one of the "Judge this" buttons.
        judge_spec: the judge's resolved spec, as a judged benchmark run stores it.
        judge_item: a stored prediction as a judge item.
        fair: how people share the engine: the model queue, the baseline lane, the budgets.
        jobs: the process's long-running work (futures, verdicts, battles, runs), which pages
            start, poll and cancel; it outlives any browser tab.
        bootstrap_rounds: resamples behind each arena rating interval.
        simulate_concurrency: how many engine calls the queue runs at once.
        hf_login: show "Sign in with Hugging Face" (on a Space).
        live: the live environments lent to browser sessions (None when switched off).
        train: trains to the end in the calling thread, a job's worker (config, owner); None:
            no training here.
        tuned_model: the model folder the Playground's transformers engine uses by default.
        prompts: the system prompt library, which fills a pinned world's prompt.
    """

    world_spec: WorldSpecFactory
    simulator: SimulatorFactory
    engine: EngineFactory
    data_dir: Path
    defaults: EngineChoice
    engines: tuple[str, ...]
    trajectories: TrajectoryStore
    sessions: SessionStore
    runs: RunStore
    queue: AnnotationQueue
    annotations: AnnotationStore
    progress: Progress
    export_records: Callable[[ExportQuery], Iterable[ExportRecord]]
    export_context: ExportContext
    can_push: bool
    identify: Identify
    arena: ArenaStore
    agreement: Callable[[], AgreementReport]
    contenders: tuple[Contender, ...]
    judge: JudgeFactory
    judge_spec: JudgeSpecFactory
    judge_item: Callable[[int], JudgeItem]
    fair: FairUse
    jobs: JobRegistry
    bootstrap_rounds: int = 100
    simulate_concurrency: int = 1
    hf_login: bool = False
    live: LivePool | None = None
    train: Callable[[TrainConfig, str | None], None] | None = None
    tuned_model: ModelSlot = field(default_factory=ModelSlot)
    prompts: PromptLibrary = field(default_factory=PromptLibrary)

    def choose_engine(self, user: User, **controls: Any) -> EngineChoice:
        """The engine panel's choice, checked against what `user` may change.

        Someone who is not signed in (admins excepted) gets at most
        `AWP_ANONYMOUS_MAX_NEW_TOKENS` per step: what they ask beyond it is cut to it.

        Only admins may point an engine at another server or pick another model than the
        configured one (or none, the engine's default). On a public Space, a free URL would let
        anyone make the server call any address, a free local model folder would load anything
        into memory, and every new model name builds (and caches) another engine.

        Raises:
            AccessDeniedError: a non-admin changed the server URL or the model.
            BadInputError: a sampling value is out of range.
        """
        choice = self._budgeted(EngineChoice.from_controls(**controls), user)
        tuned = self.tuned_model.path
        if (
            tuned
            and choice.model in ("", self.defaults.model)
            and engine_spec(choice.engine).capabilities.in_process
        ):
            # An admin made a trained model the Playground's: it stands in for an in-process
            # engine's default.
            return replace(choice, model=tuned)
        if user.is_admin:
            return choice
        if choice.base_url and choice.base_url != self.defaults.base_url:
            raise AccessDeniedError("Only admins can point the engine at another server.")
        if choice.model and choice.model != self.defaults.model:
            if engine_spec(choice.engine).capabilities.in_process:
                raise AccessDeniedError("Only admins can load another local model.")
            raise AccessDeniedError(
                f"Only admins can choose another model than the configured one "
                f"({self.defaults.model or 'the engine default'})."
            )
        return choice

    def _budgeted(self, choice: EngineChoice, user: User) -> EngineChoice:
        """`choice` with the completion budget `user` may use (see `FairUse.budget`)."""
        asked = choice.params.max_new_tokens
        budget = self.fair.budget(asked, user.logged_in or user.is_admin)
        if budget == asked:
            return choice
        return replace(choice, params=choice.params.model_copy(update={"max_new_tokens": budget}))
