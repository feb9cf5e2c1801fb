"""The answers of an OpenAI-compatible chat server, validated as they are read.

A server can answer 200 and still not have answered: an HTML page from a proxy, a JSON body to a
streaming request, an event that is not JSON, a stream that stops before its end. Each of these
becomes an engine error naming the server, never an empty prediction stored as the model's.
Only the fields the engine reads are validated; servers add many more, which are ignored.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import httpx
from pydantic import BaseModel, Field, ValidationError

from backend.errors import EngineRequestError, EngineUnavailableError

EXCERPT_CHARS = 200
EVENT_STREAM = "text/event-stream"


class Usage(BaseModel):
    """Token counts; servers send them last in a stream, or null."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class Message(BaseModel):
    """A message or a stream delta: the answer and, from thinking models, the reasoning."""

    content: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None

    @property
    def thought(self) -> str:
        """The reasoning, under either of the names servers use for it."""
        return self.reasoning_content or self.reasoning or ""


class TokenLogprob(BaseModel):
    """One sampled token's log-probability (`logprobs.content[i]`)."""

    logprob: float


class Logprobs(BaseModel):
    """The log-probabilities a server returns when asked with `logprobs: true`."""

    content: list[TokenLogprob] | None = None

    def values(self) -> list[float]:
        """The sampled tokens' log-probabilities, in order."""
        return [token.logprob for token in self.content or []]


class Choice(BaseModel):
    """One choice of a chat completion."""

    message: Message | None = None
    finish_reason: str | None = None
    logprobs: Logprobs | None = None


class ChatCompletion(BaseModel):
    """A non-streamed chat completion; it must hold at least one choice."""

    choices: list[Choice] = Field(min_length=1)
    usage: Usage | None = None


class StreamChoice(BaseModel):
    """One choice of a stream chunk."""

    delta: Message | None = None
    finish_reason: str | None = None
    logprobs: Logprobs | None = None


class Event(BaseModel):
    """One chunk of an event stream; `error` is how servers report a failure mid-stream."""

    choices: list[StreamChoice] | None = None
    usage: Usage | None = None
    error: Any = None


def read_completion(response: httpx.Response, server: str) -> ChatCompletion:
    """The chat completion in a read response's body.

    Raises:
        EngineRequestError: the body is not JSON, or not a chat completion with choices.
    """
    try:
        return ChatCompletion.model_validate_json(response.content)
    except ValidationError as exc:
        raise EngineRequestError(
            f"The server at {server} did not answer with a chat completion ({_problem(exc)}): "
            f"{excerpt(response.content)}"
        ) from None


def require_event_stream(response: httpx.Response, server: str) -> None:
    """Refuse an answer to a streaming request that is not an event stream.

    Raises:
        EngineRequestError: the body is something else (JSON, an HTML page from a proxy).
    """
    kind = response.headers.get("content-type", "")
    if EVENT_STREAM in kind:
        return
    head = b""
    try:
        for chunk in response.iter_bytes():
            head += chunk
            if len(head) >= EXCERPT_CHARS:
                break
    except httpx.TransportError:
        pass  # what arrived is enough to say what the server sent
    raise EngineRequestError(
        f"The server at {server} answered a streaming request with {kind or 'no content type'} "
        f"instead of an event stream: {excerpt(head)}. Is it an OpenAI-compatible server?"
    )


def iter_events(lines: Iterable[str], server: str) -> Iterator[Event]:
    """Decode a server-sent event stream of JSON chunks.

    `[DONE]` ends a stream; servers that do not send it (`transformers serve`) end it after the
    chunk that gives a finish reason, so a stream that ends with neither was cut short.

    Raises:
        EngineRequestError: an event is not a JSON chunk, or reports an error.
        EngineUnavailableError: the stream ended before the answer was complete.
    """
    finished = False
    for line in lines:
        if not line.startswith("data:"):
            continue
        data = line[len("data:") :].strip()
        if data == "[DONE]":
            return
        try:
            event = Event.model_validate_json(data)
        except ValidationError as exc:
            raise EngineRequestError(
                f"The server at {server} sent an event that is not a chat completion chunk "
                f"({_problem(exc)}): {excerpt(data)}"
            ) from None
        if event.error is not None:
            raise EngineRequestError(f"The server at {server} stopped the stream: {event.error}")
        finished = finished or any(choice.finish_reason for choice in event.choices or [])
        yield event
    if not finished:
        raise EngineUnavailableError(
            f"The server at {server} ended its event stream before the answer was complete "
            "(no finish reason and no [DONE])."
        )


def excerpt(data: bytes | str) -> str:
    """The start of a body, quoted, for an error message."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    text = " ".join(text.split())
    if not text:
        return "an empty body"
    return repr(text[:EXCERPT_CHARS] + ("…" if len(text) > EXCERPT_CHARS else ""))


def _problem(exc: ValidationError) -> str:
    """The first validation problem, as `where: what`."""
    first = exc.errors()[0]
    where = ".".join(map(str, first["loc"]))
    return f"{where}: {first['msg']}" if where else first["msg"]
