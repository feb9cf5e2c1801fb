"""Loading a local Hugging Face model folder for in-process generation, never from the hub."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backend.errors import EngineUnavailableError


@dataclass(frozen=True)
class LocalModel:
    """A loaded model with what generation needs to know about it.

    Attributes:
        model: the causal LM, in eval mode on its device.
        tokenizer: its tokenizer, padding on the left with a pad token set.
        eos_ids: every token that ends a completion (the tokenizer's and the generation config's).
        max_positions: the context length (prompt plus output), when the config states one.
    """

    model: Any
    tokenizer: Any
    eos_ids: frozenset[int]
    max_positions: int | None


def holds_model(folder: Path) -> bool:
    """Whether `folder` is a local Hugging Face model folder (it has a `config.json`)."""
    return (folder / "config.json").is_file()


def load_local_model(folder: Path, device: str, cpu_threads: int = 0) -> LocalModel:
    """Load the tokenizer and model in `folder` onto `device`.

    CPU runs in float32 (bfloat16 matmuls are slow on most CPUs); other devices keep the dtype the
    weights were saved in. `cpu_threads` (0: torch's choice) sets torch's threads for the whole
    process: on a CPU that other work shares, torch's threads wait on each other at every small
    operation of decoding, and one thread decodes several times faster than two (measured on
    2 shared cores: 32 tokens of the embedded model in 16 s with one, 96 s with two).

    Raises:
        EngineUnavailableError: the folder is missing, unreadable, or has no chat template.
    """
    if not holds_model(folder):
        raise EngineUnavailableError(
            f"No model folder at {folder}: the transformers engine loads a local folder "
            "(config.json, weights, tokenizer). Leave the model empty for the embedded default."
        )
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if device == "cpu" and cpu_threads:
        torch.set_num_threads(cpu_threads)
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(
            folder,
            local_files_only=True,
            dtype=torch.float32 if device == "cpu" else "auto",
            device_map=device,
        )
    except (OSError, ValueError) as exc:
        raise EngineUnavailableError(f"Cannot load the model in {folder}: {exc}") from exc
    if not tokenizer.chat_template:
        raise EngineUnavailableError(f"The tokenizer in {folder} has no chat template.")
    tokenizer.padding_side = "left"  # decoder-only models continue from the right edge
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    eos = model.generation_config.eos_token_id
    eos_ids = {eos} if isinstance(eos, int) else set(eos or [])
    if tokenizer.eos_token_id is not None:
        eos_ids.add(tokenizer.eos_token_id)
    limit = getattr(model.config, "max_position_embeddings", None)
    return LocalModel(model, tokenizer, frozenset(eos_ids), limit)
