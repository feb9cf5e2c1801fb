"""Training methods by name: the export format each reads, its columns, and its TRL trainer.

A method turns a recorded transition into its dataset columns (None when recordings cannot
feed it: preference methods need a model's prediction and a verdict on it) and builds its
trainer; the rest of the run (data, split, evaluation, saving) is the same for every method.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from backend.export.prompt import transition_text
from backend.registry import Registry
from backend.training.config import TrainConfig
from backend.training.examples import Transition

Columns = Callable[[Transition], dict[str, Any]]


def _messages(messages: list[Any]) -> list[dict[str, str]]:
    return [{"role": m.role, "content": m.content} for m in messages]


def sft_columns(transition: Transition) -> dict[str, Any]:
    """prompt/completion: the real observation as the answer."""
    return {
        "prompt": _messages(transition.prompt),
        "completion": _messages(transition.completion),
        "domain": transition.domain,
    }


def cpt_columns(transition: Transition) -> dict[str, Any]:
    """text: the whole transition, the real observation last (see the `cpt` export format)."""
    text = transition_text(transition.prompt, transition.completion)
    return {"text": text, "domain": transition.domain}


def grpo_columns(transition: Transition) -> dict[str, Any]:
    """Prompt plus what `world_model_reward` reads: reference, previous state, domain."""
    return {
        "prompt": _messages(transition.prompt),
        "reference": transition.truth,
        "previous": transition.previous,
        "domain": transition.domain,
    }


@dataclass(frozen=True)
class Method:
    """A registered training method.

    Attributes:
        export_format: the export format whose rows it trains on (corrections, export files).
        required: columns an export must have for it.
        columns: recorded transition -> columns; None when recordings cannot feed it.
        trainer: (config, args, dataset, model, tokenizer, peft config) -> a TRL trainer.
        reserve: tokens a prompt must leave free when rows carry no target (generations).
    """

    name: str
    export_format: str
    required: tuple[str, ...]
    columns: Columns | None
    trainer: Callable[..., Any]
    reserve: Callable[[TrainConfig], int] = lambda config: 0


def common_args(config: TrainConfig, output_dir: str, use_cpu: bool) -> dict[str, Any]:
    """Trainer arguments every method shares (a constant rate: time-boxed runs stop anywhere)."""
    return {
        "output_dir": output_dir,
        "max_steps": config.max_steps or -1,
        "num_train_epochs": config.epochs,
        "per_device_train_batch_size": config.batch_size,
        "gradient_accumulation_steps": config.grad_accum,
        "learning_rate": config.rate(),
        "lr_scheduler_type": "constant_with_warmup",
        "warmup_steps": 2,
        "logging_steps": 1,
        "save_strategy": "steps",
        "save_steps": config.save_steps,
        "save_total_limit": 2,
        "report_to": [],
        "use_cpu": use_cpu,
        "seed": config.seed,
        "disable_tqdm": True,
    }


def _sft(config: TrainConfig, args: dict[str, Any], dataset: Any, model: Any, tok: Any, peft: Any):
    import trl

    sft = trl.SFTConfig(**args, max_length=config.max_length)
    return trl.SFTTrainer(
        model=model, args=sft, train_dataset=dataset, processing_class=tok, peft_config=peft
    )


def _cpt(config: TrainConfig, args: dict[str, Any], dataset: Any, model: Any, tok: Any, peft: Any):
    import trl

    cpt = trl.SFTConfig(**args, max_length=config.max_length, dataset_text_field="text")
    return trl.SFTTrainer(
        model=model, args=cpt, train_dataset=dataset, processing_class=tok, peft_config=peft
    )


def _dpo(config: TrainConfig, args: dict[str, Any], dataset: Any, model: Any, tok: Any, peft: Any):
    import trl

    dpo = trl.DPOConfig(**args, max_length=config.max_length)
    return trl.DPOTrainer(
        model=model, args=dpo, train_dataset=dataset, processing_class=tok, peft_config=peft
    )


def _kto(config: TrainConfig, args: dict[str, Any], dataset: Any, model: Any, tok: Any, peft: Any):
    import trl

    # KTO estimates its KL term from mismatched pairs within a batch: it needs two rows at least.
    kto = trl.KTOConfig(
        **{**args, "per_device_train_batch_size": max(2, config.batch_size)},
        max_length=config.max_length,
    )
    return trl.KTOTrainer(
        model=model, args=kto, train_dataset=dataset, processing_class=tok, peft_config=peft
    )


def _grpo(config: TrainConfig, args: dict[str, Any], dataset: Any, model: Any, tok: Any, peft: Any):
    import trl

    from backend.export.rewards import world_model_reward

    # TRL types rewards as list[float | None]; ours never abstains, which the invariant list
    # type cannot express.
    reward: Any = world_model_reward
    grpo = trl.GRPOConfig(
        **{**args, "per_device_train_batch_size": config.num_generations},
        num_generations=config.num_generations,
        max_completion_length=config.max_completion_length,
    )
    return trl.GRPOTrainer(
        model=model,
        args=grpo,
        train_dataset=dataset,
        processing_class=tok,
        reward_funcs=reward,
        peft_config=peft,
    )


METHODS: Registry[Method] = Registry("training method")
for _method in (
    Method("sft", "sft", ("prompt", "completion"), sft_columns, _sft),
    Method("cpt", "cpt", ("text",), cpt_columns, _cpt),
    Method("dpo", "dpo", ("prompt", "chosen", "rejected"), None, _dpo),
    Method("kto", "kto", ("prompt", "completion", "label"), None, _kto),
    Method(
        "grpo",
        "reward",
        ("prompt", "reference", "domain"),
        grpo_columns,
        _grpo,
        lambda config: config.max_completion_length,
    ),
):
    METHODS.register(_method.name, _method)
