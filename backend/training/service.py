"""One training run, from examples to a served-ready model folder with its results and card.

The steps: fit the examples into the token budget, split them by trajectory (stored), run the
held-out benchmark on the base model, train with the method's TRL trainer (checkpoints, a time
limit, resume), save the model (LoRA merged, the adapter beside it), run the benchmark again,
and write `train_results.json` and `README.md` (the model card).

Run as a page's job (`backend.jobs`), each stage is counted in its own unit (held-out items,
training steps) with its own ETA, and Cancel stops the run at the next chance: within a token
of a benchmark's generation, or after the current training step, with a checkpoint saved for
`--resume`. A cancelled run saves no model and raises `JobCancelledError`.
"""

from __future__ import annotations

import hashlib
import json
import resource
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backend import jobs
from backend.errors import BadInputError
from backend.training.card import model_card
from backend.training.config import TrainConfig
from backend.training.evaluate import (
    EvalTable,
    SimulatorFor,
    before_after,
    eval_params,
    run_eval,
)
from backend.training.events import ProgressListener
from backend.training.examples import Example
from backend.training.methods import METHODS, common_args
from backend.training.results import (
    ADAPTER_DIR,
    CHECKPOINT_DIR,
    MODEL_DIR,
    RESULTS_FILE,
    DataSizes,
    TrainResults,
)
from backend.training.sources import TrainData
from backend.training.split import load_or_make
from backend.training.truncate import fit_examples, fit_items

CARD_FILE = "README.md"


def data_hash(examples: list[Example]) -> str:
    """A sha256 over the training rows, so two runs can tell whether they saw the same data."""
    digest = hashlib.sha256()
    for example in examples:
        digest.update(json.dumps(example.columns, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def peak_memory_mb() -> float:
    """The process's peak resident memory (the GPU's peak allocation on a GPU host)."""
    import torch

    if torch.cuda.is_available():
        return torch.cuda.max_memory_allocated() / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _load(base: Path) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(base)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(base)
    return model, tokenizer


def _peft_config(config: TrainConfig) -> Any:
    if not config.lora:
        return None
    from peft import LoraConfig

    return LoraConfig(
        r=config.lora_rank,
        lora_alpha=2 * config.lora_rank,
        lora_dropout=0.0,  # MoE expert weights (peft ParamWrapper) accept no dropout
        target_modules="all-linear",
        task_type="CAUSAL_LM",
    )


def _save(trainer: Any, tokenizer: Any, config: TrainConfig) -> tuple[Path, Path | None]:
    """Save the trained model as a plain folder the transformers engine loads (and the adapter)."""
    model = trainer.model
    adapter = None
    if config.lora:
        adapter = config.out / ADAPTER_DIR
        model.save_pretrained(adapter)
        tokenizer.save_pretrained(adapter)
        model = model.merge_and_unload()
    if getattr(model.config, "output_router_logits", False):
        # TRL switches MoE router logits on for its auxiliary loss; saved that way, batched
        # generation of the served model would fail on padded prompts.
        model.config.output_router_logits = False
    folder = config.out / MODEL_DIR
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder, adapter


@dataclass(frozen=True)
class Stages:
    """What a job's line calls each stage of a run (numbered when the benchmarks run too)."""

    base: str
    training: str
    saving: str
    tuned: str


def stages(evaluate: bool) -> Stages:
    """The stage names of a run that benchmarks its held-out split (`evaluate`) or not."""
    if not evaluate:
        return Stages("", "training", "saving the model", "")
    return Stages(
        "stage 1 of 3, benchmarking the base model",
        "stage 2 of 3, training",
        "stage 2 of 3, saving the model",
        "stage 3 of 3, benchmarking the tuned model",
    )


def train(
    config: TrainConfig,
    data: TrainData,
    base: Path,
    simulator_for: SimulatorFor | None,
    listener: ProgressListener | None = None,
    show_progress: bool = True,
) -> TrainResults:
    """Run one training job end to end.

    Args:
        config: the run's options.
        data: the examples (and held-out benchmark items, for recorded data).
        base: the base model folder.
        simulator_for: builds simulators for the held-out benchmark; None skips it.
        listener: hears every logged step (the runs table, the Train page).
        show_progress: draw the progress bars.

    Returns:
        What `train_results.json` holds.

    Raises:
        BadInputError: the output folder holds a finished run, or nothing is left to train on.
        JobCancelledError: the job it runs for was cancelled (a checkpoint is kept).
    """
    import datasets
    import torch
    from transformers.trainer_utils import get_last_checkpoint

    from backend.training.progress import Progress

    method = METHODS.get(config.method)
    if (config.out / RESULTS_FILE).exists() and not config.resume:
        raise BadInputError(
            f"{config.out} holds a finished run; choose another --out, or pass --resume with a "
            "larger --max-steps to train it further."
        )
    if config.out.exists() and any(config.out.iterdir()) and not config.resume:
        raise BadInputError(f"{config.out} is not empty; pass --resume to continue a run there.")
    jobs.begin_stage("loading the base model", None, "items")
    model, tokenizer = _load(base)
    fitted, report = fit_examples(
        tokenizer, data.examples, config.max_length, method.reserve(config)
    )
    split = load_or_make(
        config.out, ((e.domain, e.group) for e in data.examples), config.eval_split, config.seed
    )
    heldout = set(split.heldout)
    train_rows = [e for e in fitted if e.group not in heldout]
    if not train_rows:
        raise BadInputError("No training examples are left after the split and the token budget.")
    items = [item for group in split.heldout for item in data.items.get(group, [])]
    params = eval_params(config.eval_max_new_tokens, config.seed)
    items, item_report = fit_items(tokenizer, items, config.max_length)
    items = items[: config.eval_limit] if config.eval_limit else items
    evaluate = simulator_for is not None and bool(items)
    named = stages(evaluate)
    before = None
    if evaluate and simulator_for is not None:
        jobs.begin_stage(named.base, None, "items")
        before = run_eval(
            items, config.out, "before", str(base), simulator_for, params, True, jobs.advance
        )
    dataset = datasets.Dataset.from_list([e.columns for e in train_rows])
    args = common_args(config, str(config.out / CHECKPOINT_DIR), not torch.cuda.is_available())
    trainer = method.trainer(config, args, dataset, model, tokenizer, _peft_config(config))
    progress = Progress(config.max_minutes, listener, show_progress, named.training)
    trainer.add_callback(progress)
    checkpoint = get_last_checkpoint(str(config.out / CHECKPOINT_DIR)) if config.resume else None
    outcome = trainer.train(resume_from_checkpoint=checkpoint)
    jobs.begin_stage(named.saving, None, "items")  # a cancelled run stops here
    folder, adapter = _save(trainer, tokenizer, config)
    table: EvalTable | None = None
    if before is not None and simulator_for is not None:
        jobs.begin_stage(named.tuned, None, "items")
        after = run_eval(
            items, config.out, "after", str(folder), simulator_for, params, False, jobs.advance
        )
        table = before_after(before, after)
    results = TrainResults(
        config=config,
        base_model=str(base),
        data=data.description,
        data_hash=data_hash(train_rows),
        sizes=DataSizes(
            examples=len(data.examples),
            train_examples=len(train_rows),
            train_groups=len(split.train),
            heldout_groups=len(split.heldout),
            heldout_items=len(items),
            cut=report.cut,
            dropped=report.dropped,
            heldout_cut=item_report.cut,
            heldout_dropped=item_report.dropped,
        ),
        steps=outcome.global_step,
        train_seconds=progress.log.elapsed_s,
        tokens_per_s=progress.log.tokens_per_s,
        peak_memory_mb=peak_memory_mb(),
        stopped_by_time=progress.log.stopped_by_time,
        losses=progress.log.losses,
        model_dir=str(folder),
        adapter_dir=str(adapter) if adapter else None,
        eval=table,
    )
    (config.out / RESULTS_FILE).write_text(results.model_dump_json(indent=2), encoding="utf-8")
    card = model_card(results)
    (config.out / CARD_FILE).write_text(card, encoding="utf-8")
    (folder / CARD_FILE).write_text(card, encoding="utf-8")  # pushed with the model
    return results


def push_model(
    results: TrainResults, repo_id: str, token: str | None, endpoint: str | None = None
) -> str:
    """Upload a finished run's model folder, its card as README.md, to a Hub model repository.

    Raises:
        ExportError: no token, offline, or the Hub refused (the run itself is kept).
    """
    from backend.export.hub import push_export

    folder = Path(results.model_dir)
    card = (folder / CARD_FILE).read_text(encoding="utf-8")
    return push_export(folder, repo_id, token, card, endpoint, repo_type="model")
