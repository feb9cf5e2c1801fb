"""An HTTP client that retries what a busy or restarting server gets wrong, and only that.

Retried: 429 and 5xx answers and failed connections, with exponential backoff and jitter (so that
many workers do not retry in lockstep) and the server's `Retry-After` when it sends one. Not
retried: other 4xx answers (the request itself is wrong) and read timeouts (a long generation that
timed out would only time out again, at full cost to the server).

Every request also runs under a `Deadline`, because a per-read timeout cannot stop a server that
trickles a byte now and then. Each attempt's timeouts are cut to the time left, a retry never
waits past it, and the answer's body is checked against it as each chunk arrives. The deadline
rides with the request (as an httpx request extension) to a response hook that wraps the body, so
a body read at once and a streamed one are both covered, whoever reads them. The check runs when
bytes arrive: a read already waiting when the deadline passes still ends at its own timeout, which
is never longer than the time that was left when its attempt began. A request therefore ends
within the deadline plus at most one read timeout, never later.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import httpx

from backend.engines.base import EngineConfig
from backend.engines.common import Deadline
from backend.errors import EngineUnavailableError

BACKOFF_BASE_S = 0.25
BACKOFF_CAP_S = 10.0
RETRY_AFTER_CAP_S = 30.0
CONNECT_TIMEOUT_S = 10.0
DEADLINE_EXTENSION = "awp.deadline"
_RETRIED_ERRORS = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.RemoteProtocolError,
    httpx.ReadError,
)


class RetryingClient:
    """A thread-safe httpx client bound to one OpenAI-compatible base URL.

    Args:
        config: `base_url`, `api_key`, `timeout_s`, `deadline_s` and `max_retries` are used.
    """

    def __init__(self, config: EngineConfig) -> None:
        self.base_url = config.base_url.rstrip("/")
        self.max_retries = max(0, config.max_retries)
        self.timeout_s = config.timeout_s
        self.deadline_s = config.deadline_s
        self._client = httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {config.api_key}"},
            event_hooks={"response": [_watch_deadline]},
        )

    def send(
        self,
        method: str,
        path: str,
        json: dict[str, Any] | None = None,
        stream: bool = False,
        deadline: Deadline | None = None,
    ) -> httpx.Response:
        """Send a request, retrying as the module says, and return the first final answer.

        A streamed response is returned open; the caller closes it, and its body stays under the
        deadline while it is read.

        Args:
            method: the HTTP method.
            path: the path under the base URL.
            json: the request body.
            stream: return before reading the body (an event stream).
            deadline: the request's deadline when it spans more than this call (a request sent
                again by the caller); a fresh one of `deadline_s` otherwise.

        Raises:
            EngineUnavailableError: the server cannot be reached, timed out, kept answering
                429/5xx until the retries ran out, or the deadline passed.
        """
        deadline = deadline or Deadline(self.deadline_s)
        attempt = 0
        while True:
            request = self._client.build_request(
                method,
                path,
                json=json,
                timeout=self._timeout(deadline),
                extensions={DEADLINE_EXTENSION: partial(self.check_deadline, deadline)},
            )
            try:
                response = self._client.send(request, stream=stream)
            except _RETRIED_ERRORS as exc:
                if attempt >= self.max_retries:
                    raise EngineUnavailableError(
                        f"Cannot reach the OpenAI-compatible server at {self.base_url}: {exc}. "
                        "Is it running?"
                    ) from exc
                _pause(backoff_delay(attempt), deadline)
            except httpx.TimeoutException as exc:
                self.check_deadline(deadline)  # a wait cut short by the deadline is its doing
                raise EngineUnavailableError(
                    f"The server at {self.base_url} did not answer in time ({exc}); it may be "
                    "overloaded, or the timeout too short for this output budget."
                ) from exc
            else:
                if not _retryable(response.status_code):
                    return response
                try:
                    response.read()
                finally:
                    response.close()
                if attempt >= self.max_retries:
                    raise EngineUnavailableError(
                        f"The server at {self.base_url} answered {response.status_code} "
                        f"{attempt + 1} times: {error_detail(response)}"
                    )
                _pause(retry_after(response) or backoff_delay(attempt), deadline)
            attempt += 1

    def lines(self, response: httpx.Response, deadline: Deadline) -> Iterator[str]:
        """The lines of a streamed answer as they arrive, split on newlines only.

        `httpx`'s own `iter_lines` splits like `str.splitlines`, also on U+2028 and similar
        separators, which servers leave unescaped inside JSON strings: an event holding one would
        be cut in two.

        Raises:
            EngineUnavailableError: the connection broke, stalled, or the deadline passed.
        """
        pending = b""
        try:
            for chunk in response.iter_bytes():
                pending += chunk
                if b"\n" in chunk:
                    *complete, pending = pending.split(b"\n")
                    for line in complete:
                        yield line.rstrip(b"\r").decode("utf-8", errors="replace")
        except httpx.TimeoutException as exc:
            self.check_deadline(deadline)
            raise EngineUnavailableError(
                f"The server at {self.base_url} stopped sending its answer (nothing for "
                f"{self.timeout_s:g} s); it may be overloaded or stuck."
            ) from exc
        except httpx.TransportError as exc:
            reason = str(exc) or type(exc).__name__
            raise EngineUnavailableError(
                f"The server at {self.base_url} broke off its answer: {reason}."
            ) from exc
        if pending:
            yield pending.rstrip(b"\r").decode("utf-8", errors="replace")

    def check_deadline(self, deadline: Deadline) -> None:
        """Raise once the request's deadline has passed.

        Raises:
            EngineUnavailableError: the deadline has passed.
        """
        if deadline.remaining <= 0:
            raise EngineUnavailableError(
                f"The server at {self.base_url} did not finish its answer within the "
                f"{deadline.seconds:g} s request deadline; it may be overloaded or stalled, or "
                "the output budget too large for the deadline."
            )

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def _timeout(self, deadline: Deadline) -> httpx.Timeout:
        """This attempt's timeouts: none outlasts the deadline; connecting is quick or never."""
        self.check_deadline(deadline)
        wait = min(self.timeout_s, deadline.remaining)
        return httpx.Timeout(wait, connect=min(wait, CONNECT_TIMEOUT_S))


class _Watched(httpx.SyncByteStream):
    """A response body that calls `check` as each chunk arrives."""

    def __init__(self, stream: httpx.SyncByteStream, check: Callable[[], None]) -> None:
        self._stream = stream
        self._check = check

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._stream:
            self._check()
            yield chunk

    def close(self) -> None:
        self._stream.close()


def _watch_deadline(response: httpx.Response) -> None:
    """Response hook: put the body under the deadline its request carries."""
    check = response.request.extensions.get(DEADLINE_EXTENSION)
    if check is not None and isinstance(response.stream, httpx.SyncByteStream):
        response.stream = _Watched(response.stream, check)


def _pause(seconds: float, deadline: Deadline) -> None:
    """Wait before a retry, never past the deadline (the next attempt then reports it)."""
    time.sleep(max(0.0, min(seconds, deadline.remaining)))


def _retryable(status: int) -> bool:
    return status == 429 or status >= 500


def backoff_delay(attempt: int) -> float:
    """Seconds before retry `attempt` (0-based): doubling, capped, half of it random."""
    delay = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2**attempt)
    return delay / 2 + random.uniform(0, delay / 2)


def retry_after(response: httpx.Response) -> float | None:
    """The server's `Retry-After` in seconds (capped), when it gives a number."""
    try:
        return min(RETRY_AFTER_CAP_S, max(0.0, float(response.headers["retry-after"])))
    except (KeyError, ValueError):
        return None


def error_detail(response: httpx.Response) -> str:
    """The human part of an error body in the layouts servers use (OpenAI, FastAPI, plain)."""
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:500] or response.reason_phrase
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        for value in (error, body.get("detail"), body.get("message")):
            if value:
                return value if isinstance(value, str) else str(value)
    return str(body)[:500]
