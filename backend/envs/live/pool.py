"""Live environments shared out to browser sessions: at most N at once, closed when idle.

A public Space must not let visitors start sandboxes without bound, nor leave one running after
its browser went away: each owner (a browser session) holds at most one run, the pool holds at
most `capacity`, and a run nobody used for `idle_timeout_s` is closed by a reaper thread (and
by any call that finds it expired).

Everything else that starts sandboxes (rollout episodes in live or shadow mode, the Gymnasium
and OpenEnv environments) takes a `lease` from the same pool first, so the Playground's runs
and the leases share one budget of `capacity`, and one owner holds at most `per_owner` of it.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from backend.envs.live.base import LiveConfig
from backend.envs.live.run import LiveRun, unavailable
from backend.errors import LiveEnvironmentError

REAP_EVERY_S = 30.0


@dataclass
class _Held:
    owner: str
    run: LiveRun
    lock: threading.Lock = field(default_factory=threading.Lock)
    used: float = field(default_factory=time.monotonic)


class LivePool:
    """Starts, lends and closes live runs for many owners.

    Args:
        config: sandbox limits and places for every run.
        capacity: live environments at once, all owners together.
        idle_timeout_s: a run unused this long is closed.
        clock: the monotonic clock (tests pass a fake one).
        per_owner: the share of `capacity` one owner may hold (runs and leases together).
    """

    def __init__(
        self,
        config: LiveConfig,
        capacity: int = 8,
        idle_timeout_s: float = 900.0,
        clock: Callable[[], float] = time.monotonic,
        per_owner: int | None = None,
    ) -> None:
        self.config = config
        self.capacity = capacity
        self.per_owner = per_owner or capacity
        self.idle_timeout_s = idle_timeout_s
        self._clock = clock
        self._held: dict[str, _Held] = {}
        self._leases: dict[str, str] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._reaper: threading.Thread | None = None

    def open(self, owner: str, domain: str, task: str | None) -> tuple[str, LiveRun]:
        """Start a run of `domain` at `task` for `owner` (closing the owner's earlier one).

        Returns:
            The run's handle (what a browser session keeps) and the started run.

        Raises:
            LiveEnvironmentError: every live environment is busy, or the run could not start.
            UnknownNameError: no such task.
        """
        reason = unavailable(domain)
        if reason:
            raise LiveEnvironmentError(reason)
        self.close_owner(owner)
        self.reap()
        with self._lock:
            self._check_room(owner)
            handle = uuid.uuid4().hex
            run = LiveRun(domain, self.config)
            self._held[handle] = _Held(owner, run, used=self._clock())
        try:
            run.start(task)
        except BaseException:
            self.close(handle)
            raise
        self._ensure_reaper()
        return handle, run

    def lease(self, owner: str | None) -> str:
        """Take one place of the budget for a sandbox started elsewhere; returns its token.

        Args:
            owner: whose share it counts against; None is the operator (`awp rollout` on
                their own machine), bound by the pool's capacity only.

        Raises:
            LiveEnvironmentError: the budget, or the owner's share of it, is used up (the
                message says how long to wait).
        """
        self.reap()
        with self._lock:
            self._check_room(owner)
            token = uuid.uuid4().hex
            self._leases[token] = owner or ""
            return token

    def release(self, token: str) -> None:
        """Give a lease's place back (nothing happens for an unknown token)."""
        with self._lock:
            self._leases.pop(token, None)

    def _check_room(self, owner: str | None) -> None:
        """Refuse when the pool or `owner`'s share is full; call with the lock held."""
        mine = sum(h.owner == owner for h in self._held.values())
        mine += sum(o == owner for o in self._leases.values())
        if owner is not None and mine >= self.per_owner:
            raise LiveEnvironmentError(
                f"You already use {mine} live environments, your share of {self.capacity}. "
                "Close one, or wait for your running episodes to end."
            )
        if len(self._held) + len(self._leases) >= self.capacity:
            raise LiveEnvironmentError(
                f"All {self.capacity} live environments are busy. {self._wait_hint()}"
            )

    def _wait_hint(self) -> str:
        """How long until a place frees at the latest, from the runs' idle clocks."""
        if not self._held:
            return "Try again when a running rollout ends."
        now = self._clock()
        soonest = min(self.idle_timeout_s - (now - held.used) for held in self._held.values())
        minutes = max(1, round(max(0.0, soonest) / 60))
        return (
            f"Try again in {minutes} minute{'s' if minutes != 1 else ''} at the latest (an "
            f"unused one is closed after {self.idle_timeout_s / 60:.0f} minutes)."
        )

    def use(self, handle: str) -> tuple[LiveRun, threading.Lock]:
        """The run behind `handle` and the lock to hold while acting on it.

        Raises:
            LiveEnvironmentError: the run was closed (idle too long, or the pool restarted).
        """
        self.reap()
        with self._lock:
            held = self._held.get(handle)
            if held is None:
                raise LiveEnvironmentError(
                    "This live environment was closed (unused for "
                    f"{self.idle_timeout_s / 60:.0f} minutes, or the app restarted). "
                    "Start it again."
                )
            held.used = self._clock()
            return held.run, held.lock

    def close(self, handle: str) -> None:
        """Close one run (nothing happens for an unknown handle)."""
        with self._lock:
            held = self._held.pop(handle, None)
        if held is not None:
            with held.lock:
                held.run.close()

    def close_owner(self, owner: str) -> None:
        """Close every run of `owner` (their browser session ended or started another)."""
        with self._lock:
            handles = [h for h, held in self._held.items() if held.owner == owner]
        for handle in handles:
            self.close(handle)

    def reap(self) -> int:
        """Close runs idle past the timeout; returns how many were closed."""
        now = self._clock()
        with self._lock:
            idle = [h for h, held in self._held.items() if now - held.used > self.idle_timeout_s]
        for handle in idle:
            self.close(handle)
        return len(idle)

    def count(self) -> int:
        """Places of the budget taken now: open runs and leases."""
        with self._lock:
            return len(self._held) + len(self._leases)

    def close_all(self) -> None:
        """Close every run and stop the reaper (the app is shutting down)."""
        self._stop.set()
        with self._lock:
            handles = list(self._held)
        for handle in handles:
            self.close(handle)

    def _ensure_reaper(self) -> None:
        with self._lock:
            if self._reaper is not None and self._reaper.is_alive():
                return
            self._reaper = threading.Thread(
                target=self._reap_forever, daemon=True, name="awp-live-reaper"
            )
            self._reaper.start()

    def _reap_forever(self) -> None:
        while not self._stop.wait(min(REAP_EVERY_S, self.idle_timeout_s)):
            self.reap()
