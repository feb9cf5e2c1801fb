"""An HTTP client that retries what a busy or restarting server gets wrong, and only that.

Retried: 429 and 5xx answers and failed connections, with exponential backoff and jitter (so that
many workers do not retry in lockstep) and the server's `Retry-After` when it sends one. Not
retried: other 4xx answers (the request itself is wrong) and read timeouts (a long generation that
timed out would only time out again, at full cost to the server).
"""

from __future__ import annotations

import random
import time
from typing import Any

import httpx

from backend.engines.base import EngineConfig
from backend.errors import EngineUnavailableError

BACKOFF_BASE_S = 0.25
BACKOFF_CAP_S = 10.0
RETRY_AFTER_CAP_S = 30.0
_RETRIED_ERRORS = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.RemoteProtocolError,
    httpx.ReadError,
)


class RetryingClient:
    """A thread-safe httpx client bound to one OpenAI-compatible base URL.

    Args:
        config: `base_url`, `api_key`, `timeout_s` and `max_retries` are used.
    """

    def __init__(self, config: EngineConfig) -> None:
        self.base_url = config.base_url.rstrip("/")
        self.max_retries = max(0, config.max_retries)
        self._client = httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {config.api_key}"},
            # Connecting is quick or never happens: do not wait a whole generation's timeout for it.
            timeout=httpx.Timeout(config.timeout_s, connect=min(config.timeout_s, 10.0)),
        )

    def send(
        self, method: str, path: str, json: dict[str, Any] | None = None, stream: bool = False
    ) -> httpx.Response:
        """Send a request, retrying as the module says, and return the first final answer.

        A streamed response is returned open; the caller closes it.

        Raises:
            EngineUnavailableError: the server cannot be reached, timed out, or kept answering
                429/5xx until the retries ran out.
        """
        attempt = 0
        while True:
            request = self._client.build_request(method, path, json=json)
            try:
                response = self._client.send(request, stream=stream)
            except _RETRIED_ERRORS as exc:
                if attempt >= self.max_retries:
                    raise EngineUnavailableError(
                        f"Cannot reach the OpenAI-compatible server at {self.base_url}: {exc}. "
                        "Is it running?"
                    ) from exc
                time.sleep(backoff_delay(attempt))
            except httpx.TimeoutException as exc:
                raise EngineUnavailableError(
                    f"The server at {self.base_url} did not answer in time ({exc}); it may be "
                    "overloaded, or the timeout too short for this output budget."
                ) from exc
            else:
                if not _retryable(response.status_code):
                    return response
                response.read()
                response.close()
                if attempt >= self.max_retries:
                    raise EngineUnavailableError(
                        f"The server at {self.base_url} answered {response.status_code} "
                        f"{attempt + 1} times: {error_detail(response)}"
                    )
                time.sleep(retry_after(response) or backoff_delay(attempt))
            attempt += 1

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()


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
