"""The `vllm` engine: an in-process `vllm.LLM` for large batched rollouts on a GPU host.

vLLM schedules the whole batch itself (continuous batching, paged KV cache), so `generate` hands it
every request at once. It is an optional extra: importing this module never imports vLLM.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from backend.confidence import from_logprobs
from backend.engines.base import ENGINES, Capabilities, EngineConfig, EngineSpec
from backend.engines.common import Timer, chat_messages, finish_reason
from backend.errors import EngineUnavailableError, PromptTooLongError
from backend.types import ChatRequest, Completion, SamplingParams, StreamChunk

DEFAULT_MODEL = "Qwen/Qwen-AgentWorld-35B-A3B"
_TOO_LONG = ("longer than the maximum model length", "maximum context length", "too long")
INSTALL_HINT = "pip install 'agentworld-playground[vllm]' on a GPU host"


class VLLMEngine:
    """Offline batched generation with vLLM.

    Thinking (`<think>...</think>`) stays in the text: the output rules in `backend.parsing` split
    it off for every engine alike.

    Args:
        config: `model` is a hub id or local path (empty: Qwen-AgentWorld-35B-A3B), split over
            every visible GPU by tensor parallelism; `vllm` holds its memory share, length limit,
            dtype, eager mode and (vLLM's CPU build) KV cache size (`AWP_VLLM_*`).

    Raises:
        EngineUnavailableError: vLLM is not installed.
    """

    name = "vllm"

    def __init__(self, config: EngineConfig) -> None:
        if importlib.util.find_spec("vllm") is None:
            raise EngineUnavailableError(f"vllm is not installed: {INSTALL_HINT}")
        self.config = config
        self.model = config.model or DEFAULT_MODEL
        self._lock = threading.Lock()
        self._llm: Any = None

    def generate(self, requests: Sequence[ChatRequest]) -> list[Completion]:
        """Complete the whole batch in one `LLM.chat` call, each request with its own settings.

        Raises:
            EngineUnavailableError: vLLM could not load the model (no GPU, unknown model).
            PromptTooLongError: a prompt exceeds the model's maximum length.
        """
        if not requests:
            return []
        with self._lock:
            llm = self._ensure_loaded()
            timer = Timer()
            try:
                outputs = llm.chat(
                    [chat_messages(r) for r in requests],
                    [_sampling_params(r.params) for r in requests],
                    use_tqdm=False,
                )
            except Exception as exc:  # vLLM 0.32's VLLMValidationError is not a ValueError
                if any(words in str(exc).lower() for words in _TOO_LONG):
                    raise PromptTooLongError(f"{self.model}: {exc}") from exc
                raise
            latency = timer.elapsed
        return [self._completion(output, latency) for output in outputs]

    def stream(self, request: ChatRequest) -> Iterator[StreamChunk]:
        """The offline vLLM API does not stream: yield the finished completion as one chunk."""
        completion = self.generate([request])[0]
        yield StreamChunk(completion=completion)

    def context_length(self) -> int | None:
        """The engine's `max_model_len`: the `max_model_len` setting, else the model's; loads it.

        Raises:
            EngineUnavailableError: vLLM could not load the model.
        """
        with self._lock:
            return int(self._ensure_loaded().llm_engine.model_config.max_model_len)

    def prompt_tokens(self, request: ChatRequest) -> int:
        """Tokens of the request's chat as `LLM.chat` renders it, with no length check.

        vLLM's own renderer resolves the template (the one `LLM` was built with, else the
        processor's or tokenizer's, else vLLM's fallback) and tokenizes it, so the count is the
        one `generate` sends; its length check is what this count is for, so it is not applied.

        Raises:
            EngineUnavailableError: vLLM could not load the model.
        """
        from vllm.renderers import ChatParams

        with self._lock:  # the renderer's tokenizer is not safe to share with a running batch
            llm = self._ensure_loaded()
            params = ChatParams(
                chat_template=llm.chat_template,
                chat_template_kwargs={"add_generation_prompt": True},
            )
            _, prompt = llm.renderer.render_messages(chat_messages(request), params)
            if "prompt_token_ids" in prompt:
                return len(prompt["prompt_token_ids"])
            tokenizer = llm.get_tokenizer()
            return len(tokenizer(prompt["prompt"], add_special_tokens=False)["input_ids"])

    @property
    def ready(self) -> bool:
        """Whether the model is loaded (loading a large model takes minutes)."""
        return self._llm is not None

    def prepare(self) -> None:
        """Load the model now, so that a caller can say so before the first step waits on it.

        Raises:
            EngineUnavailableError: vLLM could not load the model.
        """
        with self._lock:
            self._ensure_loaded()

    def close(self) -> None:
        """Drop the LLM so that its GPU memory can be reclaimed."""
        with self._lock:
            self._llm = None

    def _ensure_loaded(self) -> Any:
        if self._llm is None:
            import torch
            from vllm import LLM, EngineArgs

            settings = self.config.vllm
            options: dict[str, Any] = {
                "model": self.model,
                "trust_remote_code": True,
                "tensor_parallel_size": max(1, torch.cuda.device_count()),
                "gpu_memory_utilization": settings.memory_utilization,
                "dtype": settings.dtype,
                "enforce_eager": settings.enforce_eager,
            }
            if settings.max_model_len is not None:
                options["max_model_len"] = settings.max_model_len
            if not torch.cuda.is_available():
                # vLLM's CPU build kills its engine on a seeded request whose prompt exceeds the
                # chunked-prefill budget ("CPU Generator does not use offset"): prefill whole.
                options["enable_chunked_prefill"] = False
            # Qwen-AgentWorld's config declares vision modules its checkpoint lacks; vLLM versions
            # that know the option must be told to build the language model only.
            if "language_model_only" in {field.name for field in dataclasses.fields(EngineArgs)}:
                options["language_model_only"] = True
            if settings.cpu_kv_cache_gb is not None:
                # vLLM's CPU build reads its KV cache size only from this variable.
                os.environ["VLLM_CPU_KVCACHE_SPACE"] = f"{settings.cpu_kv_cache_gb:g}"
            with captured_output() as log:
                try:
                    self._llm = LLM(**options)
                except Exception as exc:  # vLLM raises plain Exception subclasses of its own
                    cause = root_cause(log.text()) or str(exc)
                    raise EngineUnavailableError(
                        f"vLLM could not load {self.model}: {cause}"
                    ) from exc
        return self._llm

    def _completion(self, output: Any, latency: float) -> Completion:
        """One vLLM `RequestOutput` as a completion, its confidence from the sampled tokens."""
        result = output.outputs[0]
        return Completion(
            text=result.text,
            finish_reason=finish_reason(result.finish_reason),
            prompt_tokens=len(output.prompt_token_ids or []),
            completion_tokens=len(result.token_ids),
            latency_s=latency,
            engine=self.name,
            model=self.model,
            confidence=from_logprobs(sampled_logprobs(result)),
        )


def sampled_logprobs(result: Any) -> list[float]:
    """Each sampled token's log-probability in a vLLM `CompletionOutput`.

    Asked for with `logprobs=0`, each position holds the sampled token only, from vLLM's raw
    logits (its default `logprobs_mode`), like the transformers engine's. The positions are a
    list of dicts or vLLM's `FlatLogprobs`, which indexes the same way.
    """
    positions = result.logprobs or []
    return [
        position[token].logprob
        for token, position in zip(result.token_ids, positions, strict=False)
        if position and token in position
    ]


class _Captured:
    """What a process (and its children) wrote while `captured_output` was open."""

    def __init__(self, file: Any) -> None:
        self._file = file

    def text(self) -> str:
        self._file.flush()
        self._file.seek(0)
        return str(self._file.read().decode("utf-8", errors="replace"))


@contextmanager
def captured_output() -> Iterator[_Captured]:
    """Copy file descriptors 1 and 2 (ours and the children's) to a file, then pass it on.

    vLLM builds its engine in child processes, which log to stdout; when one fails, the parent
    raises only "Engine core initialization failed. See root cause above", and the root cause
    is in the children's log. Capturing the descriptors lets the error name it; everything
    written is then copied to stderr, so the log stays whole.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    with tempfile.TemporaryFile() as file:
        for fd in saved:
            os.dup2(file.fileno(), fd)
        captured = _Captured(file)
        try:
            yield captured
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for fd, copy in saved.items():
                os.dup2(copy, fd)
                os.close(copy)
            sys.stderr.write(captured.text())


_ERROR_LINE = re.compile(r"\b([A-Za-z_.]*(?:Error|Exception)): (.+)$")
_WRAPPERS = ("Engine core initialization failed", "WorkerProc initialization failed")


def root_cause(log: str) -> str:
    """The last error a vLLM log reports, leaving out the wrappers that hide it ("" if none)."""
    found = ""
    for line in log.splitlines():
        match = _ERROR_LINE.search(line)
        if match and not any(wrapper in match.group(2) for wrapper in _WRAPPERS):
            found = f"{match.group(1)}: {match.group(2).strip()}"
    return found


def _sampling_params(params: SamplingParams) -> Any:
    from vllm import SamplingParams as VLLMSamplingParams

    return VLLMSamplingParams(
        temperature=params.temperature,
        top_p=params.top_p,
        top_k=params.top_k or -1,  # -1 is "off" in every vLLM version; 0 is not in older ones
        max_tokens=params.max_new_tokens,
        seed=params.seed,
        logprobs=0,  # the sampled token's own log-probability only: the confidence
    )


ENGINES.register(
    "vllm",
    EngineSpec(
        VLLMEngine,
        # The offline API answers a stream with one chunk at the end; the sampled tokens'
        # log-probabilities give the confidence.
        Capabilities(
            streaming=False,
            batching=True,
            logprobs=True,
            in_process=True,
            context_window=True,
            answers_with_reference=False,
        ),
    ),
)
