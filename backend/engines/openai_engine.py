"""The `openai` engine: any OpenAI-compatible chat server (vLLM, SGLang, `transformers serve`).

Plain httpx rather than the `openai` SDK: the SDK adds nothing we need, and the wire details that
matter here (`reasoning_content`, `top_k`, usage while streaming) are extensions it types loosely.
A batch is sent as concurrent requests so that the server's continuous batching stays full.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from typing import Any

import httpx

from backend.confidence import from_logprobs
from backend.engines.base import ENGINES, Capabilities, EngineConfig, EngineSpec
from backend.engines.common import Deadline, chat_messages, finish_reason
from backend.engines.http_client import RetryingClient, error_detail
from backend.engines.openai_wire import (
    Message,
    Usage,
    iter_events,
    read_completion,
    require_event_stream,
)
from backend.engines.replicas import Replicas
from backend.errors import EngineRequestError, EngineUnavailableError, PromptTooLongError
from backend.jobs import carried, count_tokens, raise_if_cancelled
from backend.types import ChatRequest, Completion, StreamChunk

_CONTEXT_WORDS = (
    "context length",
    "context window",
    "maximum model length",
    "too long",
    "max_model_len",
)


class OpenAIEngine:
    """Chat completions over HTTP, batched by concurrent requests.

    Args:
        config: `base_url` (ending in `/v1`; several, comma-separated, are replicas of one
            model: `backend.engines.replicas`), `api_key`, `model` (empty: the server's first
            model), `timeout_s`, `deadline_s`, `max_retries`, `concurrency` (in flight at once,
            all replicas together) and `extra_body` (fields added to every request).
    """

    name = "openai"

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.model = config.model
        self.replicas = Replicas(config)
        # An engine dropped from a cache may still be streaming for someone: its pool is closed
        # when the last holder lets go of it (or by `close`), never under a running request.
        self._release = weakref.finalize(self, self.replicas.close)
        self._model_lock = threading.Lock()
        self._send_top_k = True
        self._send_logprobs = True

    def generate(self, requests: Sequence[ChatRequest]) -> list[Completion]:
        """Complete every request, at most `concurrency` in flight.

        Raises:
            EngineUnavailableError: the server is down, timed out, stayed busy past the retries,
                broke off its answer, or did not finish it within the request deadline.
            EngineRequestError: the server refused a request (unknown model, bad parameters),
                or answered with something that is not a chat completion; `PromptTooLongError`
                when the prompt overflows the context. The first failing request, in request
                order, decides the error.
        """
        if not requests:
            return []
        self._resolve_model()
        workers = max(1, min(self.config.concurrency, len(requests)))
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="awp-openai")
        try:
            # Each request checks its job's Cancel before it is sent: a cancelled batch stops
            # sending (answers already asked for still arrive, and are dropped).
            return list(pool.map(carried(self._complete), requests))
        finally:
            # After a failure, requests not yet sent are dropped rather than sent to fail alike.
            pool.shutdown(wait=True, cancel_futures=True)

    def stream(self, request: ChatRequest) -> Iterator[StreamChunk]:
        """Relay the server's content and reasoning deltas, then the Completion.

        Raises:
            EngineUnavailableError: as for `generate`, or the stream ended before its end.
            EngineRequestError: as for `generate`, or the answer is not an event stream of
                chat completion chunks.
        """
        model = self._resolve_model()
        deadline = Deadline(self.config.deadline_s)
        text: list[str] = []
        reasoning: list[str] = []
        logprobs: list[float] = []
        usage = Usage()
        reason: str | None = None
        with (
            self.replicas.lease() as client,
            closing(self._open(client, request, stream=True, deadline=deadline)) as response,
        ):
            require_event_stream(response, client.base_url)
            lines = client.lines(response, deadline)
            for event in iter_events(lines, client.base_url):
                usage = event.usage or usage
                for choice in event.choices or []:
                    delta = choice.delta or Message()
                    thought, content = delta.thought, delta.content or ""
                    reason = choice.finish_reason or reason
                    if choice.logprobs is not None:
                        logprobs.extend(choice.logprobs.values())
                    if thought or content:
                        reasoning.append(thought)
                        text.append(content)
                        yield StreamChunk(reasoning_delta=thought, content_delta=content)
        yield StreamChunk(
            completion=Completion(
                text="".join(text),
                reasoning="".join(reasoning),
                finish_reason=finish_reason(reason),
                prompt_tokens=usage.prompt_tokens or 0,
                completion_tokens=usage.completion_tokens or 0,
                latency_s=deadline.elapsed,
                engine=self.name,
                model=model,
                confidence=from_logprobs(logprobs),
            )
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._release()

    def available_models(self) -> list[str]:
        """Model ids the server lists at `/models`; empty when it lists none or cannot say."""
        response = self.replicas.first.send("GET", "/models")
        try:
            data = response.json().get("data", []) if response.status_code == 200 else []
        except ValueError:
            return []
        return [str(item["id"]) for item in data if isinstance(item, dict) and item.get("id")]

    def _resolve_model(self) -> str:
        """The configured model, or the server's first one when none is configured."""
        with self._model_lock:
            if not self.model:
                models = self.available_models()
                if not models:
                    raise EngineRequestError(
                        f"No model is configured and the server at {self.config.base_url} lists "
                        "none at /models; set the model name."
                    )
                self.model = models[0]
            return self.model

    def _payload(self, request: ChatRequest, stream: bool) -> dict[str, Any]:
        params = request.params
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": chat_messages(request),
            "temperature": params.temperature,
            "top_p": params.top_p,
            "max_tokens": params.max_new_tokens,
            "stream": stream,
        }
        if self._send_top_k:
            payload["top_k"] = params.top_k
        if self._send_logprobs:
            payload["logprobs"] = True
        if params.seed is not None:
            payload["seed"] = params.seed
        if stream:
            payload["stream_options"] = {"include_usage": True}
        return {**self.config.extra_body, **payload}

    def _complete(self, request: ChatRequest) -> Completion:
        raise_if_cancelled()
        deadline = Deadline(self.config.deadline_s)
        with self.replicas.lease() as client:
            response = self._open(client, request, stream=False, deadline=deadline)
            body = read_completion(response, client.base_url)
        choice = body.choices[0]
        message = choice.message or Message()
        usage = body.usage or Usage()
        count_tokens(usage.completion_tokens or 0)
        return Completion(
            text=message.content or "",
            reasoning=message.thought,
            finish_reason=finish_reason(choice.finish_reason),
            prompt_tokens=usage.prompt_tokens or 0,
            completion_tokens=usage.completion_tokens or 0,
            latency_s=deadline.elapsed,
            engine=self.name,
            model=self.model,
            confidence=from_logprobs(choice.logprobs.values() if choice.logprobs else []),
        )

    def _open(
        self, client: RetryingClient, request: ChatRequest, stream: bool, deadline: Deadline
    ) -> httpx.Response:
        """POST one chat request and return the successful response.

        `top_k` is not in the OpenAI schema; vLLM and SGLang take it, but a strict server (such as
        `transformers serve`) refuses unknown fields. Such a refusal is answered by sending the
        request again without `top_k` (under the same deadline), and not sending it to that
        server any more. `logprobs` (for the prediction's confidence) is dropped the same way by
        a server that refuses it.
        """
        while True:
            response = client.send(
                "POST",
                "/chat/completions",
                json=self._payload(request, stream),
                stream=stream,
                deadline=deadline,
            )
            if response.status_code < 400:
                return response
            response.read()
            response.close()
            detail = error_detail(response)
            if self._send_logprobs and "logprobs" in detail:
                self._send_logprobs = False  # a server without log-probabilities: ask without
                continue
            if not (self._send_top_k and "top_k" in detail):
                raise self._refusal(client.base_url, response.status_code, detail)
            self._send_top_k = False

    def _refusal(self, server: str, status: int, detail: str) -> EngineRequestError:
        """The domain error for a refusal, naming the server and its own reason."""
        lowered = detail.lower()
        where = f"The server at {server}"
        if any(words in lowered for words in _CONTEXT_WORDS):
            return PromptTooLongError(f"{where} says the prompt does not fit the model: {detail}")
        named = any(f"{q}{self.model}{q}" in detail for q in "'\"`")
        if status == 404 or "does not exist" in lowered or named:
            try:
                models = self.available_models()
            except EngineUnavailableError:  # the list is a hint; the refusal is the news
                models = []
            listed = f" It serves: {', '.join(models)}." if models else ""
            return EngineRequestError(
                f"{where} does not serve the model {self.model!r}: {detail}{listed}"
            )
        if status == 401:
            return EngineRequestError(f"{where} rejected the API key: {detail}")
        return EngineRequestError(f"{where} refused the request ({status}): {detail}")


ENGINES.register(
    "openai",
    EngineSpec(
        OpenAIEngine,
        # The server batches concurrent requests; it is asked for log-probabilities (confidence).
        Capabilities(
            streaming=True,
            batching=True,
            logprobs=True,
            in_process=False,
            context_window=False,
            answers_with_reference=False,
        ),
    ),
)
