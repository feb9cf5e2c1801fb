"""The engine interface and registry: batched generation for benchmarks, streaming for the UI."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from pydantic import BaseModel, Field

from backend.registry import Registry
from backend.types import ChatRequest, Completion, StreamChunk


class VllmOptions(BaseModel):
    """The in-process vLLM engine's memory, length, precision and compilation settings.

    Attributes:
        memory_utilization: share of GPU memory vLLM reserves (of RAM on vLLM's CPU build).
        max_model_len: longest prompt plus output; None for the model's own limit.
        dtype: weights and activations (`auto`, `bfloat16`, `float16`, `float32`).
        enforce_eager: skip CUDA graphs and compilation (quicker start, slower steps).
        cpu_kv_cache_gb: KV cache of vLLM's CPU build, in GiB (its `VLLM_CPU_KVCACHE_SPACE`);
            None leaves that variable as the environment has it.
    """

    memory_utilization: float = 0.9
    max_model_len: int | None = None
    dtype: str = "auto"
    enforce_eager: bool = False
    cpu_kv_cache_gb: float | None = None


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
        cpu_threads: torch's CPU threads for an in-process model on the CPU (process-wide);
            0 leaves torch's own choice.
        vllm: how the in-process `vllm` engine sizes and builds its model.
        extra_body: fields the `openai` engine adds to every request (server extensions such
            as vLLM's `chat_template_kwargs` or `structured_outputs`).
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
    cpu_threads: int = 1
    vllm: VllmOptions = Field(default_factory=lambda: VllmOptions())
    extra_body: dict[str, Any] = Field(default_factory=dict)


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


class ContextWindow(Protocol):
    """What an engine declaring `Capabilities.context_window` implements besides `Engine`.

    The step path asks it before sending, to cut the oldest history turns of a prompt that
    would not fit (`backend.history.fit_context`). An engine that cannot know (a server that
    does not say) declares no context window: its prompts go as they are, and a prompt too long
    comes back as the engine's `PromptTooLongError`.
    """

    def context_length(self) -> int | None:
        """Tokens of prompt and output together the model holds; None when it does not say."""
        ...

    def prompt_tokens(self, request: ChatRequest) -> int:
        """Tokens of the request's chat as the engine sends it (chat template included)."""
        ...


@dataclass(frozen=True)
class Capabilities:
    """What an engine can do, so callers ask the engine's registration instead of listing names.

    Attributes:
        streaming: `stream` yields deltas as tokens are decoded (otherwise one chunk at the end).
        batching: `generate` runs a batch together (one scheduler or concurrent requests).
        logprobs: completions carry token log-probabilities.
        in_process: runs a model inside this process, one request at a time: its queue gets no
            parallelism, and choosing another model means loading it here (an admin's call).
        context_window: knows its context length and counts a prompt's tokens (it implements
            `ContextWindow`), so the step path cuts old history to fit instead of sending it.
        answers_with_reference: returns the request's reference (the oracle), so the real
            next state must be known before it answers.
    """

    streaming: bool
    batching: bool
    logprobs: bool
    in_process: bool
    context_window: bool
    answers_with_reference: bool


@dataclass(frozen=True)
class EngineSpec:
    """A registered engine: how to build it and what it can do.

    Attributes:
        build: makes the engine from its config.
        capabilities: what it can do.
        baseline: a reference point that predicts without a model (persistence, oracle); it
            cannot act as an agent.
    """

    build: EngineFactory
    capabilities: Capabilities
    baseline: bool = False


ENGINES: Registry[EngineSpec] = Registry("engine")


def engine_spec(name: str) -> EngineSpec:
    """The registration of engine `name` (built-in engine modules are imported on first use).

    Raises:
        UnknownNameError: no engine has that name.
    """
    from backend.engines import load_builtin_engines

    load_builtin_engines()
    return ENGINES.get(name)


NO_CAPABILITIES = Capabilities(
    streaming=False,
    batching=False,
    logprobs=False,
    in_process=False,
    context_window=False,
    answers_with_reference=False,
)
"""What an engine built outside the registry (a script's or a test's own) is taken to declare."""


def capabilities_of(engine: Engine) -> Capabilities:
    """The capabilities registered under the engine's name; none for an unregistered engine."""
    from backend.engines import load_builtin_engines

    load_builtin_engines()
    return ENGINES.get(engine.name).capabilities if engine.name in ENGINES else NO_CAPABILITIES


def context_window(engine: Engine) -> ContextWindow | None:
    """The engine as a `ContextWindow` where its capabilities declare one, else None."""
    return cast(ContextWindow, engine) if capabilities_of(engine).context_window else None


def reference_answerers() -> list[str]:
    """The registered engines that answer with the request's reference (the oracle)."""
    from backend.engines import load_builtin_engines

    load_builtin_engines()
    return [name for name, spec in ENGINES.items() if spec.capabilities.answers_with_reference]


def baseline_names() -> list[str]:
    """The registered baselines (persistence, oracle), in registration order."""
    from backend.engines import load_builtin_engines

    load_builtin_engines()
    return [name for name, spec in ENGINES.items() if spec.baseline]


def chosen_model(model: str | None) -> str | None:
    """The one meaning of an empty world-model field, on every page as on the command line.

    Empty, blank or left out (a cleared model box, `--model ""`, no `--model`) means the
    configured model, `AWP_MODEL`, which is the engine's own default when that is empty too: a
    cleared box never loads another model than the one the server was set up with. None is how
    the engine builders spell "the configured one". The judge has its own one rule, the same on
    every edge (`AppContext.judge_spec`): `AWP_JUDGE_MODEL`, else the model its engine is
    configured with.

    Args:
        model: the model id as typed or passed, None when left out.

    Returns:
        The id to build, or None for the configured model.
    """
    return (model or "").strip() or None


def build_engine(config: EngineConfig) -> Engine:
    """Build the engine `config.name` names."""
    return engine_spec(config.name).build(config)
