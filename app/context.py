"""Builds long-lived services from Settings once per process; commands and the UI share them."""

from __future__ import annotations

from functools import cached_property

from app.settings import Settings
from backend.domains.prompts import PromptLibrary
from backend.engines.base import Engine, build_engine
from backend.engines.cache import EngineCache
from backend.simulate import Simulator
from storage.bench_runs import BenchRunStore
from storage.db import Database
from storage.migrate import open_database
from storage.sessions import SessionStore
from storage.train_runs import TrainRunStore
from storage.trajectories import TrajectoryStore


class AppContext:
    """Holds the settings and lazily built services.

    Engines are cached by name, model and server, a bounded number of them (see
    `backend.engines.cache`): each new model name a visitor sends would otherwise build an engine
    kept for the life of the process.

    Args:
        settings: the one settings object of this process.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._engines = EngineCache(build_engine)

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
    def bench_runs(self) -> BenchRunStore:
        """Benchmark runs, listed by the Benchmark page."""
        return BenchRunStore(self.database.session_factory)

    @cached_property
    def train_runs(self) -> TrainRunStore:
        """Training runs, listed by the Train page."""
        return TrainRunStore(self.database.session_factory)

    @cached_property
    def trajectories(self) -> TrajectoryStore:
        """Stored (imported and bundled) trajectories."""
        return TrajectoryStore(self.database.session_factory)

    def engine(
        self, name: str | None = None, model: str | None = None, base_url: str | None = None
    ) -> Engine:
        """Return a cached engine, building it on first use."""
        config = self.settings.engine_config(name, model)
        if base_url:
            config = config.model_copy(update={"base_url": base_url})
        return self._engines.get(config)

    def simulator(
        self, name: str | None = None, model: str | None = None, base_url: str | None = None
    ) -> Simulator:
        """A simulator over the named engine."""
        return Simulator(self.engine(name, model, base_url), self.prompts)

    def close(self) -> None:
        """Close every engine still cached."""
        self._engines.close()
        if "database" in self.__dict__:
            self.database.dispose()
