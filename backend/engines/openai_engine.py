"""The `openai` engine: any OpenAI-compatible chat server (vLLM, SGLang, `transformers serve`).

Plain httpx rather than the `openai` SDK: the SDK adds nothing we need, and the wire details that
matter here (`reasoning_content`, `top_k`, usage while streaming) are extensions it types loosely.
A batch is sent as concurrent requests so that the server's continuous batching stays full.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from typing import Any

import httpx

from backend.engines.base import ENGINES, EngineConfig
from backend.engines.common import Timer, chat_messages, finish_reason
from backend.engines.http_client import RetryingClient, error_detail
from backend.errors import EngineRequestError, EngineUnavailableError, PromptTooLongError
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
        config: `base_url` (ending in `/v1`), `api_key`, `model` (empty: the server's first
            model), `timeout_s`, `max_retries` and `concurrency`.
    """

    name = "openai"

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.model = config.model
        self._client = RetryingClient(config)
        self._model_lock = threading.Lock()
        self._send_top_k = True

    def generate(self, requests: Sequence[ChatRequest]) -> list[Completion]:
        """Complete every request, at most `concurrency` in flight.

        Raises:
            EngineUnavailableError: the server is down, timed out, or stayed busy past the retries.
            EngineRequestError: the server refused a request (unknown model, bad parameters);
                `PromptTooLongError` when the prompt overflows the context. The first failing
                request, in request order, decides the error.
        """
        if not requests:
            return []
        self._resolve_model()
        workers = max(1, min(self.config.concurrency, len(requests)))
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="awp-openai")
        try:
            return list(pool.map(self._complete, requests))
        finally:
            # After a failure, requests not yet sent are dropped rather than sent to fail alike.
            pool.shutdown(wait=True, cancel_futures=True)

    def stream(self, request: ChatRequest) -> Iterator[StreamChunk]:
        """Relay the server's content and reasoning deltas, then the Completion.

        Raises:
            EngineUnavailableError: as for `generate`.
            EngineRequestError: as for `generate`.
        """
        model = self._resolve_model()
        timer = Timer()
        text: list[str] = []
        reasoning: list[str] = []
        usage: dict[str, Any] = {}
        reason: str | None = None
        with closing(self._open(request, stream=True)) as response:
            for event in _events(response):
                usage = event.get("usage") or usage
                for choice in event.get("choices") or []:
                    delta = choice.get("delta") or {}
                    thought = delta.get("reasoning_content") or delta.get("reasoning") or ""
                    content = delta.get("content") or ""
                    reason = choice.get("finish_reason") or reason
                    if thought or content:
                        reasoning.append(thought)
                        text.append(content)
                        yield StreamChunk(reasoning_delta=thought, content_delta=content)
        yield StreamChunk(
            completion=Completion(
                text="".join(text),
                reasoning="".join(reasoning),
                finish_reason=finish_reason(reason),
                prompt_tokens=int(usage.get("prompt_tokens") or 0),
                completion_tokens=int(usage.get("completion_tokens") or 0),
                latency_s=timer.elapsed,
                engine=self.name,
                model=model,
            )
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def available_models(self) -> list[str]:
        """Model ids the server lists at `/models`; empty when it lists none or cannot say."""
        response = self._client.send("GET", "/models")
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
        if params.seed is not None:
            payload["seed"] = params.seed
        if stream:
            payload["stream_options"] = {"include_usage": True}
        return payload

    def _complete(self, request: ChatRequest) -> Completion:
        timer = Timer()
        body = self._open(request, stream=False).json()
        choice = (body.get("choices") or [{}])[0]
        message = choice.get("message") or {}
        usage = body.get("usage") or {}
        return Completion(
            text=message.get("content") or "",
            reasoning=message.get("reasoning_content") or message.get("reasoning") or "",
            finish_reason=finish_reason(choice.get("finish_reason")),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            latency_s=timer.elapsed,
            engine=self.name,
            model=self.model,
        )

    def _open(self, request: ChatRequest, stream: bool) -> httpx.Response:
        """POST one chat request and return the successful response.

        `top_k` is not in the OpenAI schema; vLLM and SGLang take it, but a strict server (such as
        `transformers serve`) refuses unknown fields. Such a refusal is answered by sending the
        request again without `top_k`, and not sending it to that server any more.
        """
        while True:
            response = self._client.send(
                "POST", "/chat/completions", json=self._payload(request, stream), stream=stream
            )
            if response.status_code < 400:
                return response
            response.read()
            response.close()
            detail = error_detail(response)
            if not (self._send_top_k and "top_k" in detail):
                raise self._refusal(response.status_code, detail)
            self._send_top_k = False

    def _refusal(self, status: int, detail: str) -> EngineRequestError:
        """The domain error for a refusal, naming the server's own reason."""
        lowered = detail.lower()
        where = f"The server at {self.config.base_url}"
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


def _events(response: httpx.Response) -> Iterator[dict[str, Any]]:
    """Decode a server-sent event stream of JSON chunks; `[DONE]` ends it."""
    for line in response.iter_lines():
        if not line.startswith("data:"):
            continue
        data = line[len("data:") :].strip()
        if data == "[DONE]":
            return
        event = json.loads(data)
        if "error" in event:
            raise EngineRequestError(f"The server stopped the stream: {event['error']}")
        yield event


ENGINES.register("openai", OpenAIEngine)
