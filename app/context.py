"""The composition root: the one place that reads Settings and opens the database.

Every edge (each `awp` command, the web app, the Gymnasium and OpenEnv factories) calls
`build_context` once and takes its stores, engines and judge from the context it returns, so a
process holds one connection pool and one engine cache, and closes both when it is done.
"""

from __future__ import annotations

import logging
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import Any

from app.settings import Settings
from backend.domains.prompts import PromptLibrary
from backend.engines.base import (
    Engine,
    build_engine,
    chosen_model,
    engine_spec,
)
from backend.engines.cache import EngineCache
from backend.envs.live.pool import LivePool
from backend.errors import BadInputError
from backend.fair_use import FairUse
from backend.grounding.grounder import Grounder
from backend.grounding.record import RecordBook
from backend.jobs import JobRegistry
from backend.scoring.judge import JUDGE_PARAMS, Judge
from backend.scoring.judge_library import JudgePromptLibrary
from backend.scoring.official_judge import OFFICIAL_JUDGE_PARAMS, load_template
from backend.simulate import Simulator
from backend.spec import MEASURED, SERVER_CHOICE, Purpose, WorldSpec
from backend.trust import TrustRule
from backend.types import HistoryMode, SamplingParams
from storage.annotations import AnnotationQueue, AnnotationStore
from storage.arena import ArenaStore
from storage.db import Database
from storage.migrate import open_database
from storage.runs import RunStore
from storage.sessions import SessionStore
from storage.tool_calls import ToolCallRecord
from storage.trajectories import TrajectoryStore
from storage.transitions import TransitionStore

logger = logging.getLogger(__name__)


def simulate_concurrency(settings: Settings) -> int:
    """Engine calls the web app runs at once.

    An in-process engine generates one request at a time (the transformers engine holds a lock),
    so running more in parallel only hides the queue position from waiting users; a server
    (vLLM, SGLang) batches concurrent requests, so it gets `settings.concurrency`.
    """
    in_process = engine_spec(settings.engine).capabilities.in_process
    return 1 if in_process else max(1, settings.concurrency)


_REGISTRIES_CHECKED: list[bool] = []
"""Holds True once the registries passed the contract in this process (they change only by
imports, which the check makes first)."""


def _check_registries_once() -> None:
    if _REGISTRIES_CHECKED:
        return
    from backend.contract import check_registries
    from ui.renderers import RENDERERS

    check_registries(RENDERERS)
    _REGISTRIES_CHECKED.append(True)


def build_context(**overrides: Any) -> AppContext:
    """The process's context: `AWP_*` settings with `overrides` on top.

    Command-line flags arrive as overrides; a flag left out is None and is dropped, so the
    environment's value stands.

    The first call of a process checks every registry (`backend.contract.check_registries`):
    an entry that lacks a fact stops the start with a message naming each one.

    Args:
        overrides: `Settings` fields to set (None values are ignored).

    Raises:
        IncompleteRegistryError: a registered name lacks a fact.
    """
    _check_registries_once()
    return AppContext(
        Settings(**{key: value for key, value in overrides.items() if value is not None})
    )


class AppContext:
    """Holds the settings and lazily built services.

    Engines are cached by name, model and server, a bounded number of them (see
    `backend.engines.cache`): each new model name a visitor sends would otherwise build an engine
    kept for the life of the process. Use it as a context manager (or call `close`) so the
    engines and the database pool it opened are released.

    Args:
        settings: the one settings object of this process.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._engines = EngineCache(build_engine)

    def __enter__(self) -> AppContext:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @cached_property
    def prompts(self) -> PromptLibrary:
        """The system prompt library, with the override directory when configured."""
        return PromptLibrary(self.settings.prompts_dir)

    @cached_property
    def database(self) -> Database:
        """The database, opened (and upgraded when empty) on first use."""
        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        return open_database(self.settings.resolved_database_url())

    @cached_property
    def sessions(self) -> SessionStore:
        """Simulation sessions and their steps."""
        return SessionStore(self.database.session_factory)

    @cached_property
    def tool_calls(self) -> ToolCallRecord:
        """Earlier real answers to tool calls, which the MCP mirror answers repeats from."""
        return ToolCallRecord(self.database.session_factory)

    @cached_property
    def runs(self) -> RunStore:
        """Benchmark, training and rollout runs; runs left by killed processes read interrupted."""
        store = RunStore(self.database.session_factory)
        reaped = store.reap()
        if reaped:
            logger.warning("marked %d run(s) of stopped processes interrupted", reaped)
        return store

    @cached_property
    def jobs(self) -> JobRegistry:
        """Long work the pages start in the background, one registry per process.

        Held here rather than by a page, a job outlives the browser tab that started it.
        """
        return JobRegistry(workers=max(1, self.settings.concurrency))

    @cached_property
    def trajectories(self) -> TrajectoryStore:
        """Stored (imported and bundled) trajectories."""
        return TrajectoryStore(self.database.session_factory)

    @cached_property
    def trust(self) -> TrustRule:
        """When a correction answers as reality: the one rule every reader of reality uses."""
        return self.settings.trust_rule()

    @cached_property
    def transitions(self) -> TransitionStore:
        """Real transitions (recorded turns and trusted corrections), read at retrieval time."""
        return TransitionStore(self.database.session_factory, self.trust)

    @cached_property
    def grounder(self) -> Grounder:
        """The one grounder of the process, so every simulator shares its indexes."""
        settings = self.settings
        return Grounder(
            self.transitions,
            settings.grounding_k,
            settings.grounding_tokens,
            settings.grounding_method,
        )

    @cached_property
    def record_book(self) -> RecordBook:
        """The one record of real answers of the process, shared by every simulator."""
        return RecordBook(self.transitions)

    @cached_property
    def annotations(self) -> AnnotationStore:
        """Annotations and their history."""
        return AnnotationStore(self.database.session_factory, self.trust)

    @cached_property
    def annotation_queue(self) -> AnnotationQueue:
        """The review queue, handing each item to `AWP_ANNOTATION_OVERLAP` people."""
        return AnnotationQueue(
            self.database.session_factory, overlap=self.settings.annotation_overlap
        )

    @cached_property
    def arena(self) -> ArenaStore:
        """Votes of "Which one is real?" and the arena, with the same overlap as the queue."""
        return ArenaStore(
            self.database.session_factory,
            self.settings.annotation_overlap,
            signed_in_only=self.settings.reports_signed_in_only,
        )

    @cached_property
    def live_pool(self) -> LivePool | None:
        """The live environments lent out at once, all callers together (None when off)."""
        settings = self.settings
        if not settings.live_enabled:
            return None
        return LivePool(
            settings.live_config(),
            settings.live_max,
            settings.live_idle_timeout_s,
            per_owner=settings.live_per_person,
        )

    @cached_property
    def fair_use(self) -> FairUse:
        """How the web app's people share the engine: model queue, baseline lane, budgets."""
        settings = self.settings
        return FairUse(
            simulate_concurrency(settings),
            settings.steps_per_person,
            settings.anonymous_max_new_tokens,
        )

    def engine(
        self, name: str | None = None, model: str | None = None, base_url: str | None = None
    ) -> Engine:
        """Return a cached engine, building it on first use."""
        config = self.settings.engine_config(name, model)
        if base_url:
            config = config.model_copy(update={"base_url": base_url})
        return self._engines.get(config)

    def world_spec(
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
        """The world a `purpose` runs in: the request on top of Settings, resolved once.

        What the request leaves out (None, or a blank engine, model or URL) is the configured
        value, on every edge alike: `AWP_ENGINE`, `AWP_MODEL` (which is the engine's own default
        when empty, named here as the engine names it), `AWP_BASE_URL` (only for an engine that
        talks to a server), the sampling settings and `AWP_HISTORY_MODE`. Grounding and record
        answers are off for measurements (`MEASURED`: benchmarks, training evaluation) unless
        asked, and `AWP_GROUNDING` / `AWP_RECORD_ANSWERS` elsewhere. Hybrid's confidence
        threshold is `AWP_HYBRID_MIN_CONFIDENCE` in hybrid rollouts (the only place it applies).

        Args:
            purpose: what the world model is for.
            engine: engine registry name.
            model: model id as typed or passed.
            base_url: another OpenAI-compatible server.
            sampling: sampling parameters of every step.
            history_mode: which observations the model sees as history.
            grounding: show real transitions as demonstrations.
            record_answers: answer exact matches of real transitions from the record.
            hybrid: route actions by the domain's policy (hybrid backing).

        Raises:
            UnknownNameError: no engine has that name.
        """
        settings = self.settings
        measured = purpose in MEASURED
        name = (engine or "").strip() or settings.engine
        url = self._server(name, base_url)
        configured = chosen_model(model)
        built = self.engine(name, settings.model if configured is None else configured, url)
        return WorldSpec(
            purpose=purpose,
            engine=name,
            model=built.model or SERVER_CHOICE,
            base_url=url,
            sampling=sampling or settings.sampling(),
            history_mode=history_mode or settings.history_mode,
            history_rule=(
                "cut_to_context" if engine_spec(name).capabilities.context_window else "as_sent"
            ),
            context_tokens=settings.vllm_max_model_len if name == "vllm" else None,
            grounding=(not measured and settings.grounding) if grounding is None else grounding,
            grounding_k=settings.grounding_k,
            grounding_tokens=settings.grounding_tokens,
            grounding_method=settings.grounding_method,
            record_answers=(
                (not measured and settings.record_answers)
                if record_answers is None
                else record_answers
            ),
            hybrid=hybrid,
            hybrid_routes="domain_policy" if hybrid else "none",
            # Selective simulation (a low-confidence answer handed to the live environment)
            # runs in rollouts only; elsewhere hybrid routes by policy alone.
            hybrid_min_confidence=(
                settings.hybrid_min_confidence if hybrid and purpose is Purpose.ROLLOUT else 0.0
            ),
        )

    def _server(self, engine: str, base_url: str | None) -> str | None:
        """The server `engine` talks to (`base_url`, else `AWP_BASE_URL`); None if it has none.

        Raises:
            UnknownNameError: no engine has that name.
        """
        registered = engine_spec(engine)
        if registered.capabilities.in_process or registered.baseline:
            return None
        return (base_url or "").strip() or self.settings.base_url

    def spec_engine(self, spec: WorldSpec) -> Engine:
        """The (cached) engine a spec names: its model as the engine spells its default."""
        default = self.engine(spec.engine, "", spec.base_url)
        if spec.model in (default.model, SERVER_CHOICE):
            return default
        return self.engine(spec.engine, spec.model, spec.base_url)

    def simulator(self, spec: WorldSpec) -> Simulator:
        """A simulator of the world `spec` describes: the one door every edge's world model takes.

        Every edge resolves its spec with `world_spec` and builds its simulator here, so what
        a run stores (`spec.stored()`) is what ran. Grounded simulators share the process's
        grounder and record; where no real transition is stored, a grounded step's prompt is
        the official one.
        """
        return Simulator(
            self.spec_engine(spec),
            self.prompts,
            self.grounder if spec.grounding else None,
            self.record_book if spec.record_answers else None,
            spec,
        )

    def judge_spec(
        self,
        name: str | None = None,
        model: str | None = None,
        base_url: str | None = None,
        max_new_tokens: int | None = None,
        official: bool = False,
    ) -> WorldSpec:
        """The rubric judge's engine, model and sampling, resolved by one rule for every edge.

        An engine left out is `AWP_JUDGE_ENGINE`, else `AWP_ENGINE`. A model left out or blank
        (the CLI without `--judge-model`, the Benchmark page's judge menu, the "Judge this"
        buttons) is `AWP_JUDGE_MODEL`; when that is empty too, the model the judge's engine is
        configured with: `AWP_MODEL` on the default engine, the engine's own default on any
        other. The budget is `max_new_tokens`, else `AWP_JUDGE_MAX_NEW_TOKENS` (the official
        judge: the release's own budget). The judge is greedy and never grounded.
        """
        settings = self.settings
        engine = (name or "").strip() or settings.judge_engine or settings.engine
        default = settings.model if engine == settings.engine else ""
        chosen = chosen_model(model) or settings.judge_model or default
        base = OFFICIAL_JUDGE_PARAMS if official else JUDGE_PARAMS
        budget = max_new_tokens or (
            base.max_new_tokens if official else settings.judge_max_new_tokens
        )
        url = self._server(engine, base_url)
        built = self.engine(engine, chosen, url)
        return WorldSpec(
            purpose=Purpose.JUDGE,
            engine=engine,
            model=built.model or SERVER_CHOICE,
            base_url=url,
            sampling=base.model_copy(update={"max_new_tokens": budget}),
            history_mode=HistoryMode.TEACHER_FORCED,
            history_rule="as_sent",
            grounding=False,
            grounding_k=settings.grounding_k,
            grounding_tokens=settings.grounding_tokens,
            grounding_method=settings.grounding_method,
            record_answers=False,
        )

    def judge(
        self,
        name: str | None = None,
        model: str | None = None,
        base_url: str | None = None,
        prompts_dir: Path | None = None,
        max_new_tokens: int | None = None,
        official: bool = False,
    ) -> Judge:
        """The rubric judge, the one way the CLI, the Benchmark page and "Judge this" build it.

        Its engine, model and budget follow `judge_spec`'s one rule, whichever edge asks.

        Args:
            name: the judge's engine; None or blank for the configured one.
            model: its model id; None or blank for the configured one (see `judge_spec`).
            base_url: another OpenAI-compatible server for it.
            prompts_dir: judge prompts to use instead of the built-in ones.
            max_new_tokens: completion budget instead of the configured one.
            official: judge exactly as the release's `eval.py judge` does, with the official
                judge prompts and user template found through `prompts_dir`.

        Raises:
            BadInputError: `official` without a folder of official judge prompts and template.
        """
        spec = self.judge_spec(name, model, base_url, max_new_tokens, official)
        engine = self.spec_engine(spec)
        library = JudgePromptLibrary(prompts_dir)
        if official:
            if prompts_dir is None:
                raise BadInputError(
                    "The official judge needs --judge-prompts: the `prompts/` folder of a "
                    "QwenLM/Qwen-AgentWorld checkout."
                )
            template = load_template(Path(prompts_dir))
            return Judge(engine, library, spec.sampling, official=template)
        return Judge(engine, library, spec.sampling)

    def close(self) -> None:
        """Cancel running jobs; close the live environments, every engine and the database pool."""
        jobs = self.__dict__.get("jobs")
        if jobs is not None:
            jobs.close()
        pool = self.__dict__.get("live_pool")
        if pool is not None:
            pool.close_all()
        self._engines.close()
        if "database" in self.__dict__:
            self.database.dispose()
