"""Train an agent inside the world model with TRL's GRPO, rewarded by the predicted check.

The policy is prompted as every engine agent is (`agent_messages`), at the live start state of
each training task; its completion's action is played in simulation, then the domain's finish
action, and the world model is asked for the task's check (the check as an action,
`check_action`): reward 1 if it predicts `CHECK: PASS`, else 0. Reality never enters training;
whether the gain holds live is measured afterwards, on held-out tasks, by `awp rollout
--sim-to-real` with the checkpoint as the agent (`benchmarks/bench_agent_grpo.py`).

A world model that never predicts a pass (persistence, or a small model that never answers the
verdict) gives every completion 0: every group's advantage is 0 and the policy does not move.
The results say so (`rewards`, `reward_mean`) rather than hiding it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from backend.domains.base import get_domain
from backend.envs.sim.agents import AgentView, agent_messages, read_action
from backend.envs.sim.check_action import CheckStep, predict_checks
from backend.envs.sim.episode import EnvOptions, EpisodeSpec
from backend.envs.sim.rewards import RewardModel
from backend.envs.sim.world import WorldEnv, step_all
from backend.errors import BadInputError
from backend.simulate import Simulator

RESULTS_FILE = "agent_grpo.json"
MODEL_DIR = "model"


@dataclass(frozen=True)
class AgentGrpoConfig:
    """One GRPO run of an agent in the world model.

    Attributes:
        base: the agent's model folder (a transformers causal LM with a chat template).
        out: the run folder; the trained agent goes to `out/model`.
        steps: optimizer steps.
        num_generations: completions per prompt (the GRPO group).
        max_completion_length: tokens per completion (one action).
        learning_rate: the optimizer's rate.
        seed: the trainer's seed.
    """

    base: Path
    out: Path
    steps: int = 4
    num_generations: int = 2
    max_completion_length: int = 48
    learning_rate: float = 1e-5
    seed: int = 0


class AgentGrpoResults(BaseModel):
    """What a run wrote to `agent_grpo.json`."""

    base: str
    model_dir: str
    world: str
    domain: str
    tasks: list[str]
    steps: int
    rewards: list[float]
    reward_mean: float | None
    train_seconds: float


def fresh_folder(out: Path) -> None:
    """Refuse a run folder that holds anything (a finished run is never overwritten).

    Raises:
        BadInputError: `out` is not empty.
    """
    if out.exists() and any(out.iterdir()):
        raise BadInputError(f"{out} is not empty: choose another --out.")


def simulated_check_rewards(
    simulator: Simulator,
    reward: RewardModel,
    options: EnvOptions,
    episodes: Sequence[tuple[EpisodeSpec, Sequence[str]]],
) -> list[float]:
    """Play each episode's actions in simulation and score it by the world model's check.

    Every episode then gets its domain's finish action (where it has one), so the predicted
    check judges the state an ended episode is in, as the live check would.

    Returns:
        1.0 where the world model predicts that the check passes, else 0.0, in order.
    """
    quiet = replace(options, backing="sim", record=False)
    envs: list[WorldEnv] = []
    played: list[list[str]] = []
    try:
        for spec, actions in episodes:
            finish = get_domain(spec.domain).finish
            moves = [*actions, *([finish.action] if finish is not None and finish.action else [])]
            env = WorldEnv(simulator, reward, replace(quiet, max_steps=max(1, len(moves))))
            env.reset(spec)
            envs.append(env)
            played.append(moves)
        for index in range(max((len(moves) for moves in played), default=0)):
            active = [i for i, env in enumerate(envs) if index < len(played[i]) and not env.done]
            step_all([envs[i] for i in active], [played[i][index] for i in active])
        steps = [
            CheckStep(spec, env.turns, spec.params(options.params), options.history_mode)
            for (spec, _), env in zip(episodes, envs, strict=True)
        ]
        verdicts = predict_checks(simulator, steps)
    finally:
        for env in envs:
            env.close()
    return [1.0 if verdict else 0.0 for verdict in verdicts]


def prompt_rows(specs: Sequence[EpisodeSpec]) -> list[dict[str, Any]]:
    """The GRPO dataset: each start's agent prompt (chat messages) and its index."""
    rows = []
    for index, spec in enumerate(specs):
        view = AgentView(spec=spec, turns=[], observation=str(spec.initial_state or ""))
        messages = [{"role": m.role, "content": m.content} for m in agent_messages(view)]
        rows.append({"prompt": messages, "start": index})
    return rows


def _text(completion: Any) -> str:
    """A TRL completion's text: conversational (a list of messages) or plain."""
    if isinstance(completion, list):
        return "".join(str(message.get("content", "")) for message in completion)
    return str(completion)


def train_agent(
    config: AgentGrpoConfig,
    specs: Sequence[EpisodeSpec],
    simulator: Simulator,
    reward: RewardModel,
    options: EnvOptions,
) -> AgentGrpoResults:
    """Train the agent with GRPO on `specs` (its training tasks), entirely in simulation.

    Raises:
        BadInputError: no training starts, starts of several domains, or a used run folder.
    """
    import datasets
    import torch
    import trl
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if not specs or len({spec.domain for spec in specs}) != 1:
        raise BadInputError("Training needs starts of one domain (--tasks).")
    fresh_folder(config.out)
    seen: list[float] = []

    # TRL types rewards as list[float | None]; ours never abstains, which the invariant list
    # type cannot express (as in `backend.training.methods`).
    def check_reward(completions: list[Any], start: list[int], **_: Any) -> Any:
        episodes = [
            (specs[index], [read_action(_text(completion))])
            for completion, index in zip(completions, start, strict=True)
        ]
        scores = simulated_check_rewards(simulator, reward, options, episodes)
        seen.extend(scores)
        return scores

    tokenizer = AutoTokenizer.from_pretrained(config.base)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(config.base)
    args = trl.GRPOConfig(
        output_dir=str(config.out / "checkpoints"),
        max_steps=config.steps,
        per_device_train_batch_size=config.num_generations,
        num_generations=config.num_generations,
        max_completion_length=config.max_completion_length,
        learning_rate=config.learning_rate,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=not torch.cuda.is_available(),
        seed=config.seed,
        disable_tqdm=True,
    )
    trainer = trl.GRPOTrainer(
        model=model,
        args=args,
        train_dataset=datasets.Dataset.from_list(prompt_rows(specs)),
        processing_class=tokenizer,
        reward_funcs=check_reward,
    )
    started = time.monotonic()
    outcome = trainer.train()
    elapsed = time.monotonic() - started
    folder = config.out / MODEL_DIR
    trained: Any = trainer.model
    if getattr(trained.config, "output_router_logits", False):
        trained.config.output_router_logits = False  # as `awp train` saves MoE models
    trained.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    results = AgentGrpoResults(
        base=str(config.base),
        model_dir=str(folder),
        world=f"{simulator.engine.name}:{simulator.engine.model}",
        domain=specs[0].domain,
        tasks=[spec.live_task or spec.task for spec in specs],
        steps=outcome.global_step,
        rewards=seen,
        reward_mean=sum(seen) / len(seen) if seen else None,
        train_seconds=round(elapsed, 1),
    )
    (config.out / RESULTS_FILE).write_text(results.model_dump_json(indent=2), encoding="utf-8")
    return results
