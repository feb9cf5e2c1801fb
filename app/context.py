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
from backend.engines.base import Engine, build_engine, chosen_model, engine_spec
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
from backend.trust import TrustRule
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


def build_context(**overrides: Any) -> AppContext:
    """The process's context: `AWP_*` settings with `overrides` on top.

    Command-line flags arrive as overrides; a flag left out is None and is dropped, so the
    environment's value stands.

    Args:
        overrides: `Settings` fields to set (None values are ignored).
    """
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

    def simulator(
        self,
        name: str | None = None,
        model: str | None = None,
        base_url: str | None = None,
        grounding: bool | None = None,
        record: bool | None = None,
    ) -> Simulator:
        """A simulator over the named engine: the one door every edge's world model goes through.

        `awp simulate/bench/env/rollout`, the gym factories and the pages all pass the model as
        typed, so `chosen_model` gives an empty one the same meaning everywhere. Grounded
        simulators share the process's grounder; where no real transition is stored, a
        grounded step's prompt is the official one.

        Args:
            name: engine registry name; None for `AWP_ENGINE`.
            model: model id; None, empty or blank for the configured one (`AWP_MODEL`).
            base_url: another OpenAI-compatible server; None for `AWP_BASE_URL`.
            grounding: show real transitions as demonstrations; None for `AWP_GROUNDING`.
            record: answer exact matches of real transitions from the record; None for
                `AWP_RECORD_ANSWERS`.
        """
        grounded = self.settings.grounding if grounding is None else grounding
        answered = self.settings.record_answers if record is None else record
        return Simulator(
            self.engine(name, chosen_model(model), base_url),
            self.prompts,
            self.grounder if grounded else None,
            self.record_book if answered else None,
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

        With no `name` (the "Judge this" buttons) the `AWP_JUDGE_*` settings pick it: engine
        `AWP_JUDGE_ENGINE` with `AWP_JUDGE_MODEL` (empty: that engine's default), else the
        default engine with `AWP_JUDGE_MODEL` or `AWP_MODEL`, and `AWP_JUDGE_MAX_NEW_TOKENS`.
        A caller that picks an engine (`--judge`, the Benchmark page's judge menu) gets that
        engine with `model` as `engine` reads it and the judge's own default budget: a choice
        made for one run is not silently bent by the settings of the buttons.

        Args:
            name: the judge's engine; None for the configured one.
            model: its model id (None: the configured model; "": the engine's default).
            base_url: another OpenAI-compatible server for it.
            prompts_dir: judge prompts to use instead of the built-in ones.
            max_new_tokens: completion budget instead of the default.
            official: judge exactly as the release's `eval.py judge` does, with the official
                judge prompts and user template found through `prompts_dir`.

        Raises:
            BadInputError: `official` without a folder of official judge prompts and template.
        """
        budget = max_new_tokens
        if not name:
            configured = self.settings
            name = configured.judge_engine or configured.engine
            if model is None:
                model = (
                    configured.judge_model
                    if configured.judge_engine
                    else (configured.judge_model or None)
                )
            budget = budget or configured.judge_max_new_tokens
        engine = self.engine(name, model, base_url)
        library = JudgePromptLibrary(prompts_dir)
        if official:
            if prompts_dir is None:
                raise BadInputError(
                    "The official judge needs --judge-prompts: the `prompts/` folder of a "
                    "QwenLM/Qwen-AgentWorld checkout."
                )
            base = OFFICIAL_JUDGE_PARAMS
            params = base.model_copy(update={"max_new_tokens": budget or base.max_new_tokens})
            return Judge(engine, library, params, official=load_template(Path(prompts_dir)))
        params = JUDGE_PARAMS.model_copy(
            update={"max_new_tokens": budget or JUDGE_PARAMS.max_new_tokens}
        )
        return Judge(engine, library, params)

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
