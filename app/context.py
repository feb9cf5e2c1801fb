"""Builds long-lived services from Settings once per process; commands and the UI share them."""

from __future__ import annotations

from functools import cached_property

from app.settings import Settings
from backend.domains.prompts import PromptLibrary
from backend.engines.base import Engine, build_engine
from backend.simulate import Simulator
from storage.bench_runs import BenchRunStore
from storage.db import Database
from storage.migrate import open_database
from storage.sessions import SessionStore
from storage.trajectories import TrajectoryStore


class AppContext:
    """Holds the settings and lazily built services (engines are cached by name and model).

    Args:
        settings: the one settings object of this process.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._engines: dict[tuple[str, str, str], Engine] = {}

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
        key = (config.name, config.model, config.base_url)
        if key not in self._engines:
            self._engines[key] = build_engine(config)
        return self._engines[key]

    def simulator(
        self, name: str | None = None, model: str | None = None, base_url: str | None = None
    ) -> Simulator:
        """A simulator over the named engine."""
        return Simulator(self.engine(name, model, base_url), self.prompts)

    def close(self) -> None:
        """Close every engine built so far."""
        for engine in self._engines.values():
            engine.close()
        self._engines.clear()
        if "database" in self.__dict__:
            self.database.dispose()
