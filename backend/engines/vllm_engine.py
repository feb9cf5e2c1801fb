"""The `vllm` engine: an in-process `vllm.LLM` for large batched rollouts on a GPU host.

vLLM schedules the whole batch itself (continuous batching, paged KV cache), so `generate` hands it
every request at once. It is an optional extra: importing this module never imports vLLM.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from backend.engines.base import ENGINES, EngineConfig
from backend.engines.common import Timer, chat_messages, finish_reason
from backend.errors import EngineUnavailableError, PromptTooLongError
from backend.types import ChatRequest, Completion, SamplingParams, StreamChunk

DEFAULT_MODEL = "Qwen/Qwen-AgentWorld-35B-A3B"
INSTALL_HINT = "pip install 'agentworld-playground[vllm]' on a GPU host"


class VLLMEngine:
    """Offline batched generation with vLLM.

    Thinking (`<think>...</think>`) stays in the text: the output rules in `backend.parsing` split
    it off for every engine alike.

    Args:
        config: `model` is a hub id or local path (empty: Qwen-AgentWorld-35B-A3B). The model is
            split over every visible GPU by tensor parallelism.

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
            except ValueError as exc:
                if "longer than the maximum model length" in str(exc):
                    raise PromptTooLongError(f"{self.model}: {exc}") from exc
                raise
            latency = timer.elapsed
        return [self._completion(output, latency) for output in outputs]

    def stream(self, request: ChatRequest) -> Iterator[StreamChunk]:
        """The offline vLLM API does not stream: yield the finished completion as one chunk."""
        completion = self.generate([request])[0]
        yield StreamChunk(completion=completion)

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

            options: dict[str, Any] = {
                "model": self.model,
                "trust_remote_code": True,
                "tensor_parallel_size": max(1, torch.cuda.device_count()),
            }
            # Qwen-AgentWorld's config declares vision modules its checkpoint lacks; vLLM versions
            # that know the option must be told to build the language model only.
            if "language_model_only" in {field.name for field in dataclasses.fields(EngineArgs)}:
                options["language_model_only"] = True
            try:
                self._llm = LLM(**options)
            except (OSError, RuntimeError, ValueError) as exc:
                raise EngineUnavailableError(f"vLLM could not load {self.model}: {exc}") from exc
        return self._llm

    def _completion(self, output: Any, latency: float) -> Completion:
        result = output.outputs[0]
        return Completion(
            text=result.text,
            finish_reason=finish_reason(result.finish_reason),
            prompt_tokens=len(output.prompt_token_ids or []),
            completion_tokens=len(result.token_ids),
            latency_s=latency,
            engine=self.name,
            model=self.model,
        )


def _sampling_params(params: SamplingParams) -> Any:
    from vllm import SamplingParams as VLLMSamplingParams

    return VLLMSamplingParams(
        temperature=params.temperature,
        top_p=params.top_p,
        top_k=params.top_k or -1,  # -1 is "off" in every vLLM version; 0 is not in older ones
        max_tokens=params.max_new_tokens,
        seed=params.seed,
    )


ENGINES.register("vllm", VLLMEngine)
