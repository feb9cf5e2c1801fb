"""OpenEnv sessions' steps gathered into vector steps: one `step_all` for every waiting session.

Each OpenEnv session steps its own `WorldEnv`; stepped one by one, 1,000 sessions are 1,000
engine calls and 1,000 transactions a round, each on its own thread fighting for the GIL. The
gatherer collects the steps that arrive while a batch runs (and for a short window when none
does), then steps them all with ONE `step_all`: the world model sees one batch (in-process
engines batch it, a server gets N concurrent requests), the layer stores it in one
transaction, and one worker thread does the work. A batch that fails is stepped again one
session at a time, so one bad session costs only its own step.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from backend.envs.sim.episode import StepResult
from backend.envs.sim.world import WorldEnv, step_all

WINDOW_S = 0.002
"""How long a step waits for others to join it when no batch is running."""
MAX_BATCH = 512
"""The most sessions stepped together."""


@dataclass
class _Waiting:
    world: WorldEnv
    action: str
    future: asyncio.Future[StepResult]


class StepGatherer:
    """Gathers concurrent sessions' steps into batches (one per event loop).

    Args:
        workers: batches running at once (more than one keeps a server engine's queue full
            while the next batch forms).
        window_s: how long a lone step waits for company.
        max_batch: the most steps in one batch.
    """

    def __init__(
        self, workers: int = 2, window_s: float = WINDOW_S, max_batch: int = MAX_BATCH
    ) -> None:
        self.window_s = window_s
        self.max_batch = max_batch
        self.batches = 0
        self.steps = 0
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="awp-gather")
        self._waiting: list[_Waiting] = []
        self._slots = asyncio.Semaphore(workers)
        self._flusher: asyncio.Task[None] | None = None

    async def step(self, world: WorldEnv, action: str) -> StepResult:
        """Step `world` with the next batch; returns its result (or raises its error)."""
        future: asyncio.Future[StepResult] = asyncio.get_running_loop().create_future()
        self._waiting.append(_Waiting(world, action, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        return await future

    async def _flush(self) -> None:
        """Send batches while steps wait: each waits for a free worker, then takes them all."""
        await asyncio.sleep(self.window_s)
        while self._waiting:
            await self._slots.acquire()
            batch, self._waiting = self._waiting[: self.max_batch], self._waiting[self.max_batch :]
            asyncio.get_running_loop().run_in_executor(self._pool, self._run, batch)
            if self._waiting:
                await asyncio.sleep(0)

    def _run(self, batch: list[_Waiting]) -> None:
        """Step a batch in a worker thread and hand each session its result."""
        loop = batch[0].future.get_loop()
        try:
            outcomes: list[StepResult | BaseException] = list(
                step_all([w.world for w in batch], [w.action for w in batch])
            )
        except Exception:
            outcomes = []
            for waiting in batch:
                try:
                    outcomes.append(step_all([waiting.world], [waiting.action])[0])
                except Exception as exc:
                    outcomes.append(exc)
        finally:
            loop.call_soon_threadsafe(self._slots.release)
        self.batches += 1
        self.steps += len(batch)
        for waiting, outcome in zip(batch, outcomes, strict=True):
            loop.call_soon_threadsafe(_settle, waiting.future, outcome)

    def close(self) -> None:
        """Stop the worker threads (after the batches running)."""
        self._pool.shutdown(wait=True)


def _settle(future: asyncio.Future[StepResult], outcome: StepResult | BaseException) -> None:
    if future.done():
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)
