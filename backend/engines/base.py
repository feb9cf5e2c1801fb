"""The engine interface and registry: batched generation for benchmarks, streaming for the UI."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

from backend.registry import Registry
from backend.types import ChatRequest, Completion, StreamChunk


class EngineConfig(BaseModel):
    """Settings an engine is built from; `app` fills it from the one Settings object.

    Attributes:
        name: registry name of the engine.
        model: model id or path; empty means the engine's default.
        base_url: OpenAI-compatible server URL (openai engine).
        api_key: bearer token for that server.
        data_dir: where the embedded model is prepared and cached.
        timeout_s: longest wait for a connection or for the next bytes of an answer.
        deadline_s: longest time one request may take in all, retries and streaming included.
        max_retries: retries on 429/5xx/connection errors, with exponential backoff.
        concurrency: requests in flight at once for a batch.
        device: torch device for in-process engines.
    """

    name: str = "transformers"
    model: str = ""
    base_url: str = "http://127.0.0.1:8000/v1"
    api_key: str = "EMPTY"
    data_dir: Path = Field(default_factory=lambda: Path.home() / ".agentworld")
    timeout_s: float = 600.0
    deadline_s: float = 900.0
    max_retries: int = 3
    concurrency: int = 8
    device: str = "cpu"


@runtime_checkable
class Engine(Protocol):
    """A text generator behind one interface.

    `generate` takes a batch so that engines with their own scheduler (vLLM, a remote server's
    continuous batching) see the whole batch; `stream` serves one interactive request.
    """

    name: str
    model: str

    def generate(self, requests: Sequence[ChatRequest]) -> list[Completion]:
        """Complete every request; the result list is parallel to `requests`."""
        ...

    def stream(self, request: ChatRequest) -> Iterator[StreamChunk]:
        """Yield deltas for one request; the last chunk carries the full Completion."""
        ...

    def close(self) -> None:
        """Release processes, connections and memory held by the engine."""
        ...


EngineFactory = Callable[[EngineConfig], Engine]

ENGINES: Registry[EngineFactory] = Registry("engine")
BASELINES = frozenset({"persistence", "oracle"})


def build_engine(config: EngineConfig) -> Engine:
    """Build the engine `config.name` names (built-in engine modules are imported on first use)."""
    from backend.engines import load_builtin_engines

    load_builtin_engines()
    return ENGINES.get(config.name)(config)
