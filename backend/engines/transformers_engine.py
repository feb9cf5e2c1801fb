"""The in-process transformers engine: the embedded default model or any local model folder.

It runs on a laptop CPU with no server and no hub access. torch and transformers are imported only
when the model is first loaded, so building the engine (and importing this module) stays cheap.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backend.confidence import from_logprobs
from backend.engines.base import ENGINES, Capabilities, EngineConfig, EngineSpec
from backend.engines.common import Timer, chat_messages
from backend.engines.embedded import EMBEDDED_MODEL, embedded_model_dir, prepare_embedded_model
from backend.engines.local_model import LocalModel, holds_model, load_local_model
from backend.errors import EngineUnavailableError, PromptTooLongError
from backend.jobs import Job, current_job, raise_if_cancelled
from backend.types import ChatRequest, Completion, SamplingParams, StreamChunk

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Batch:
    """Left-padded prompts that share sampling settings and an output budget."""

    inputs: Any
    prompt_tokens: list[int]
    budget: int


class TransformersEngine:
    """Batched and streamed generation with `transformers` on one local model.

    One model serves every caller, and `generate` is not re-entrant on it, so a lock serialises
    generation; a stream holds the lock until it is exhausted or closed.

    Args:
        config: `model` is a local model folder; empty means the embedded SmolLM2, prepared in
            `data_dir` on first use. `concurrency` caps the batch size; `device` is a torch one.
    """

    name = "transformers"

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.model = config.model or EMBEDDED_MODEL
        self._lock = threading.Lock()
        self._loaded: LocalModel | None = None

    def generate(self, requests: Sequence[ChatRequest]) -> list[Completion]:
        """Complete every request; requests with equal sampling settings share a batch.

        A seed makes a batch reproducible: the same requests with the same seed give the same text.

        Raises:
            EngineUnavailableError: the model folder is missing or cannot be loaded.
            PromptTooLongError: a prompt leaves no room for output in the model's context.
        """
        if not requests:
            return []
        results: dict[int, Completion] = {}
        with self._lock:
            loaded = self._ensure_loaded()
            size = max(1, self.config.concurrency)
            for params, indices in _group_by_params(requests).items():
                for start in range(0, len(indices), size):
                    chunk = indices[start : start + size]
                    batch = self._tokenize(loaded, [requests[i] for i in chunk], params)
                    results.update(zip(chunk, self._run(loaded, batch, params), strict=True))
        return [results[index] for index in range(len(requests))]

    def stream(self, request: ChatRequest) -> Iterator[StreamChunk]:
        """Yield text deltas as tokens are decoded, then one chunk with the full Completion.

        Raises:
            EngineUnavailableError: the model folder is missing or cannot be loaded.
            PromptTooLongError: the prompt leaves no room for output in the model's context.
        """
        with self._lock:
            loaded = self._ensure_loaded()
            yield from self._stream(loaded, request)

    def context_length(self) -> int | None:
        """The model's context (its config's `max_position_embeddings`); loads the model.

        Raises:
            EngineUnavailableError: the model folder is missing or cannot be loaded.
        """
        with self._lock:
            return self._ensure_loaded().max_positions

    def prompt_tokens(self, request: ChatRequest) -> int:
        """Tokens of the request's chat through the model's template, as `generate` sends it.

        Raises:
            EngineUnavailableError: the model folder is missing or cannot be loaded.
        """
        with self._lock:  # a fast tokenizer is not safe to share with a running batch
            tokenizer = self._ensure_loaded().tokenizer
            text = _chat_text(tokenizer, request)
            return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    @property
    def ready(self) -> bool:
        """Whether the model is loaded (the first use converts and loads it: slow on a CPU)."""
        return self._loaded is not None

    def prepare(self) -> None:
        """Load the model now, so that a caller can say so before the first step waits on it.

        Raises:
            EngineUnavailableError: the model folder is missing or cannot be loaded.
        """
        with self._lock:
            self._ensure_loaded()

    def warm(self) -> bool:
        """Start loading the model on a background thread when it is already on disk.

        A page that runs this model can pay the load (tens of seconds on a loaded CPU) before
        anyone presses a button. Nothing starts when the model is loaded or loading, or when it
        must first be converted (the first step says so, and converts it in view).

        Returns:
            Whether a background load started.
        """
        folder = Path(self.config.model) if self.config.model else None
        stored = folder or embedded_model_dir(self.config.data_dir)
        if self._loaded is not None or not holds_model(stored):
            return False
        if not self._lock.acquire(blocking=False):  # a step (or another warm-up) holds it
            return False

        def load() -> None:
            try:
                self._ensure_loaded()
            except EngineUnavailableError as exc:  # the first step reports it where it is seen
                logger.warning("Warming %s failed: %s", self.model, exc)
            finally:
                self._lock.release()

        threading.Thread(target=load, name="awp-warm", daemon=True).start()
        return True

    def close(self) -> None:
        """Drop the model so its memory can be reclaimed; the next call loads it again."""
        with self._lock:
            self._loaded = None

    def _ensure_loaded(self) -> LocalModel:
        if self._loaded is None:
            config = self.config
            folder = Path(config.model) if config.model else prepare_embedded_model(config.data_dir)
            self._loaded = load_local_model(folder, config.device, config.cpu_threads)
        return self._loaded

    def _tokenize(
        self, loaded: LocalModel, requests: Sequence[ChatRequest], params: SamplingParams
    ) -> _Batch:
        """Apply the chat template, pad on the left and fit the output budget to the context."""
        tokenizer = loaded.tokenizer
        texts = [_chat_text(tokenizer, r) for r in requests]
        # The template already holds every special token the model expects.
        inputs = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
        lengths = [int(n) for n in inputs["attention_mask"].sum(dim=1).tolist()]
        budget = params.max_new_tokens
        if loaded.max_positions is not None:
            room = loaded.max_positions - max(lengths)
            if room < 1:
                raise PromptTooLongError(
                    f"The prompt has {max(lengths)} tokens, but {self.model} holds at most "
                    f"{loaded.max_positions} tokens of prompt and output together. Shorten the "
                    "history or the system prompt, or use a model with a longer context."
                )
            budget = min(budget, room)
        return _Batch(inputs.to(loaded.model.device), lengths, budget)

    def _generation_kwargs(
        self, loaded: LocalModel, params: SamplingParams, budget: int
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "return_dict_in_generate": True,
            "output_logits": True,  # the raw logits, for the prediction's confidence
            "max_new_tokens": budget,
            "pad_token_id": loaded.tokenizer.pad_token_id,
            "eos_token_id": sorted(loaded.eos_ids),
        }
        if params.temperature == 0:
            kwargs["do_sample"] = False
        else:
            # top_k=0 switches top-k filtering off, as it does for vLLM.
            kwargs.update(
                do_sample=True,
                temperature=params.temperature,
                top_p=params.top_p,
                top_k=params.top_k,
            )
        return kwargs

    def _run(self, loaded: LocalModel, batch: _Batch, params: SamplingParams) -> list[Completion]:
        import torch

        timer = Timer()
        if params.seed is not None:
            torch.manual_seed(params.seed)
        kwargs = self._generation_kwargs(loaded, params, batch.budget)
        kwargs["stopping_criteria"] = _job_criteria(current_job(), None)
        with torch.inference_mode():
            output = loaded.model.generate(**batch.inputs, **kwargs)
            # A cancelled job's rows stopped mid-sentence: nothing of them may pass for a result.
            raise_if_cancelled()
            width = batch.inputs["input_ids"].shape[1]
            new = output.sequences[:, width:]
            logprobs = token_logprobs(output.logits, new)
        latency = timer.elapsed
        return [
            self._completion(loaded, row.tolist(), prompt_tokens, batch.budget, latency, scores)
            for row, prompt_tokens, scores in zip(new, batch.prompt_tokens, logprobs, strict=True)
        ]

    def _stream(self, loaded: LocalModel, request: ChatRequest) -> Iterator[StreamChunk]:
        """Generate in a worker thread and relay its decoded text; closing the stream cancels it."""
        import torch
        from transformers import TextIteratorStreamer

        cancel = threading.Event()
        job = current_job()  # the generating thread is not the job's: it is told here
        timer = Timer()
        params = request.params
        batch = self._tokenize(loaded, [request], params)
        streamer = TextIteratorStreamer(
            loaded.tokenizer, skip_prompt=True, skip_special_tokens=True
        )
        outcome: dict[str, Any] = {}
        kwargs = self._generation_kwargs(loaded, params, batch.budget)
        kwargs.update(streamer=streamer, stopping_criteria=_job_criteria(job, cancel))

        def work() -> None:
            try:
                if params.seed is not None:
                    torch.manual_seed(params.seed)
                with torch.inference_mode():
                    outcome["output"] = loaded.model.generate(**batch.inputs, **kwargs)
            except Exception as exc:
                outcome["error"] = exc
                streamer.end()  # wake the reader, which would otherwise wait forever

        worker = threading.Thread(target=work, name="awp-transformers-stream", daemon=True)
        worker.start()
        try:
            for delta in streamer:
                if delta:
                    yield StreamChunk(content_delta=delta)
        finally:
            cancel.set()
            worker.join()
        if "error" in outcome:
            raise outcome["error"]
        if job is not None:
            job.check()
        output = outcome["output"]
        new = output.sequences[:, batch.inputs["input_ids"].shape[1] :]
        with torch.inference_mode():
            scores = token_logprobs(output.logits, new)[0]
        completion = self._completion(
            loaded, new[0].tolist(), batch.prompt_tokens[0], batch.budget, timer.elapsed, scores
        )
        yield StreamChunk(completion=completion)

    def _completion(
        self,
        loaded: LocalModel,
        ids: list[int],
        prompt_tokens: int,
        budget: int,
        latency: float,
        logprobs: list[float],
    ) -> Completion:
        """Cut a row after its first end-of-sequence token (padding follows) and decode it.

        Its confidence is the geometric mean probability of the tokens kept (`logprobs` holds
        each generated token's log-probability under the model's own, unprocessed logits).
        """
        used = next((i + 1 for i, token in enumerate(ids) if token in loaded.eos_ids), None)
        if used is None:
            used, reason = len(ids), "length" if len(ids) >= budget else "stop"
        else:
            reason = "stop"
        return Completion(
            text=loaded.tokenizer.decode(ids[:used], skip_special_tokens=True),
            finish_reason=reason,
            prompt_tokens=prompt_tokens,
            completion_tokens=used,
            latency_s=latency,
            engine=self.name,
            model=self.model,
            confidence=from_logprobs(logprobs[:used]),
        )


def _chat_text(tokenizer: Any, request: ChatRequest) -> str:
    """The request's chat through the model's template, ready for the assistant's answer."""
    return str(
        tokenizer.apply_chat_template(
            chat_messages(request), tokenize=False, add_generation_prompt=True
        )
    )


def _job_criteria(job: Job | None, cancel: threading.Event | None) -> Any:
    """Stop decoding when the job is cancelled (or `cancel` is set); count its tokens.

    Checked after every decoded token, so a cancelled job frees the model within one step
    instead of spending the rest of its budget; each call counts one token per row.
    """
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList

    class Cancelled(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            rows = input_ids.shape[0]
            if job is not None and job.unit == "tokens":
                job.add(rows)
            stop = (job is not None and job.cancelled) or (cancel is not None and cancel.is_set())
            return torch.full((rows,), stop, dtype=torch.bool)

    return StoppingCriteriaList([Cancelled()])


def token_logprobs(logits: Sequence[Any], tokens: Any) -> list[list[float]]:
    """Each row's generated tokens' log-probabilities under the raw logits of each step.

    One step at a time (a [batch, vocab] slice each), so memory stays one slice, not the whole
    [batch, steps, vocab] block.
    """
    import torch

    columns = [
        torch.log_softmax(step.float(), dim=-1).gather(1, tokens[:, i : i + 1])
        for i, step in enumerate(logits)
    ]
    if not columns:
        return [[] for _ in range(tokens.shape[0])]
    return torch.cat(columns, dim=1).tolist()


def _group_by_params(requests: Sequence[ChatRequest]) -> dict[SamplingParams, list[int]]:
    """Indices of the requests per sampling settings: one `generate` call takes one setting."""
    groups: dict[SamplingParams, list[int]] = {}
    for index, request in enumerate(requests):
        groups.setdefault(request.params, []).append(index)
    return groups


ENGINES.register(
    "transformers",
    EngineSpec(
        TransformersEngine,
        Capabilities(
            streaming=True,
            batching=True,
            logprobs=True,
            in_process=True,
            context_window=True,
            answers_with_reference=False,
        ),
    ),
)
