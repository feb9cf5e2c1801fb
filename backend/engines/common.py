"""Helpers every engine shares, so that timing, payloads and finish reasons mean one thing."""

from __future__ import annotations

import time

from backend.types import ChatRequest


class Timer:
    """Wall-clock time since creation; engines report it as `Completion.latency_s`.

    `perf_counter` is monotonic, so a clock change during a long generation cannot make a latency
    negative.
    """

    def __init__(self) -> None:
        self._start = time.perf_counter()

    @property
    def elapsed(self) -> float:
        """Seconds since the timer was created."""
        return time.perf_counter() - self._start


class Deadline(Timer):
    """A limit on a whole request: every attempt, every wait between them, every byte of the answer.

    A per-read timeout alone cannot stop a server that trickles a byte now and then: each read
    succeeds, and the request holds its worker for as long as the server likes.

    Args:
        seconds: the time the request may take in all.
    """

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    @property
    def remaining(self) -> float:
        """Seconds left; zero or less once the deadline has passed."""
        return self.seconds - self.elapsed


def chat_messages(request: ChatRequest) -> list[dict[str, str]]:
    """The request's messages as the plain dicts chat templates and OpenAI servers expect."""
    return [{"role": message.role, "content": message.content} for message in request.messages]


def finish_reason(raw: str | None) -> str:
    """Map a backend's finish reason onto ours.

    Only "the budget ran out" matters downstream (thinking models return empty answers then), so
    `length` is kept and every other ending (`stop`, `eos`, tool calls, none given) is `stop`.
    """
    return "length" if raw == "length" else "stop"
