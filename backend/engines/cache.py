"""A bounded cache of engines, so that many engine choices cannot grow memory without end.

Each distinct (engine, model, server) builds an engine, and an `openai` engine holds a connection
pool (about 1 MB). The cache keeps the `size` most recently used engines and forgets the rest.

Forgetting is not closing. A request in another thread may still be streaming from the engine a
newer choice pushed out, and closing it would break that request mid-answer. So a forgotten engine
is released by reference counting: it lives as long as something still holds it (a simulator
mid-stream, a benchmark run) and is released when the last holder lets go. Engines that hold
outside resources give them back then: the openai engine closes its connection pool from a
finalizer, and an in-process engine's model is freed with it. `close` closes the engines still
cached, at the end of a process.

The default size is larger than the number of choices a non-admin can make in the UI (each engine
with its configured model or none, on the configured server), so only admins' and the CLI's
choices ever push an engine out, and nobody else can make the app reload a local model.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from backend.engines.base import Engine, EngineConfig

ENGINE_CACHE_SIZE = 16

EngineKey = tuple[str, str, str]
"""(engine name, model, server URL): what tells two engines apart."""


class EngineCache:
    """The `size` most recently used engines, built on first use; safe to share between threads.

    Args:
        build: builds an engine from its configuration.
        size: how many engines to keep.
    """

    def __init__(
        self, build: Callable[[EngineConfig], Engine], size: int = ENGINE_CACHE_SIZE
    ) -> None:
        self._build = build
        self._size = max(1, size)
        self._engines: OrderedDict[EngineKey, Engine] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, config: EngineConfig) -> Engine:
        """The cached engine for `config`; a new one pushes out the least recently used."""
        key = (config.name, config.model, config.base_url)
        with self._lock:
            engine = self._engines.get(key)
            if engine is None:
                engine = self._build(config)
                self._engines[key] = engine
                while len(self._engines) > self._size:
                    self._engines.popitem(last=False)
            self._engines.move_to_end(key)
            return engine

    def close(self) -> None:
        """Close and forget every cached engine."""
        with self._lock:
            engines = list(self._engines.values())
            self._engines.clear()
        for engine in engines:
            engine.close()
