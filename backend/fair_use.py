"""Fair use of the world model among the people of a public app: a queue, lanes and budgets.

All steps of the web app used to share one slot (Gradio's `simulate` concurrency id): one
visitor's step with `max_new_tokens=262144` kept another visitor's 16-token step waiting for
over two minutes, and instant baseline steps (persistence, oracle) waited behind it too. Here:

- model steps wait first come, first served for `model_slots` places (1 for an in-process
  engine, which generates one request at a time anyway); a waiting step knows how many steps
  are ahead of it, which the page shows the person;
- baseline engines take another lane: they never wait for a model place;
- one person has at most `per_person` steps in flight (running or waiting); one more is refused
  with a message, so nobody can fill the queue alone;
- a visitor who is not signed in gets at most `anonymous_max_new_tokens` per step;
- at most `MAX_WAITING` model steps wait; one more is refused with a message. A waiting step
  polls its ticket from one of Gradio's worker threads, so an unbounded queue (68 visitors in
  issue 20's flood) would hold every thread and a new visitor's step could not even start.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from types import TracebackType

from backend.errors import BusyError

MAX_WAITING = 32
"""Model steps that may wait at once; the web app keeps twice as many worker threads."""


class Ticket:
    """One admitted step: its place in the model queue until it runs, then its slot.

    Release it (or use it as a context manager) when the step ends, however it ends.
    """

    def __init__(self, fair: FairUse, person: str, instant: bool) -> None:
        self.fair = fair
        self.person = person
        self.instant = instant
        self.granted = instant
        self.released = False

    def ahead(self) -> int:
        """Steps ahead of this one: the model steps running and those queued before it."""
        return self.fair._ahead(self)

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait up to `timeout_s` (None: for good) for the step's turn; whether it has come."""
        return self.fair._wait(self, timeout_s)

    def release(self) -> None:
        """Give the place (or the slot) back; a second call does nothing."""
        self.fair._release(self)

    def __enter__(self) -> Ticket:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()


class FairUse:
    """Admits engine steps: a per-person limit, a first-come queue for the model, a free lane.

    Args:
        model_slots: model steps running at once (what the engine serves in parallel).
        per_person: steps one person may have in flight, running or waiting.
        anonymous_max_new_tokens: the completion budget of people who are not signed in.
    """

    def __init__(self, model_slots: int, per_person: int, anonymous_max_new_tokens: int) -> None:
        self.model_slots = max(1, model_slots)
        self.per_person = max(1, per_person)
        self.anonymous_max_new_tokens = anonymous_max_new_tokens
        self._cond = threading.Condition()
        self._waiting: deque[Ticket] = deque()
        self._running = 0
        self._mine: Counter[str] = Counter()

    def budget(self, max_new_tokens: int, signed_in: bool) -> int:
        """The completion budget a step gets: what was asked, capped for anonymous visitors."""
        return max_new_tokens if signed_in else min(max_new_tokens, self.anonymous_max_new_tokens)

    def admit(self, person: str, instant: bool) -> Ticket:
        """Take a place for one step of `person`: queued for the model, or free when `instant`.

        Args:
            person: who steps (the server's name for them, never what the client sends).
            instant: a baseline engine's step, which needs no model place.

        Raises:
            BusyError: `person` already has `per_person` steps in flight, or `MAX_WAITING`
                model steps wait already.
        """
        with self._cond:
            if not instant and len(self._waiting) >= MAX_WAITING:
                raise BusyError(
                    f"The model queue is full: {MAX_WAITING} steps wait already. Try again in a "
                    "minute, or step with a baseline engine (persistence, oracle), which never "
                    "waits."
                )
            if self._mine[person] >= self.per_person:
                many = "a step" if self.per_person == 1 else f"{self.per_person} steps"
                raise BusyError(
                    f"You already have {many} running or waiting: wait for it to finish, or "
                    "press Stop, before you step again."
                )
            self._mine[person] += 1
            ticket = Ticket(self, person, instant)
            if not instant:
                self._waiting.append(ticket)
                self._grant()
            return ticket

    def in_flight(self) -> tuple[int, int]:
        """Model steps running and waiting now (what a status line or a test reads)."""
        with self._cond:
            return self._running, len(self._waiting)

    def _grant(self) -> None:
        """Hand free model slots to the first waiting steps; call with the lock held."""
        while self._running < self.model_slots and self._waiting:
            self._waiting.popleft().granted = True
            self._running += 1
        self._cond.notify_all()

    def _ahead(self, ticket: Ticket) -> int:
        with self._cond:
            if ticket.granted or ticket.released:
                return 0
            return self._running + self._waiting.index(ticket)

    def _wait(self, ticket: Ticket, timeout_s: float | None) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: ticket.granted, timeout_s)

    def _release(self, ticket: Ticket) -> None:
        with self._cond:
            if ticket.released:
                return
            ticket.released = True
            self._mine[ticket.person] -= 1
            if self._mine[ticket.person] <= 0:
                del self._mine[ticket.person]
            if ticket.instant:
                return
            if ticket.granted:
                self._running -= 1
            else:
                self._waiting.remove(ticket)
            self._grant()


def queue_line(ahead: int) -> str:
    """What a waiting person reads near the Step button."""
    if ahead <= 0:
        return ""
    steps = "1 step is" if ahead == 1 else f"{ahead} steps are"
    return f"⏳ Waiting for the model: {steps} ahead of you."
