"""`awp train-agent`: GRPO on an agent inside the world model, rewarded by the predicted check.

The trained folder is an agent for `awp rollout --agent FOLDER/model`, so the same command that
measures any agent measures it live (`--sim-to-real`: live success and the honesty meter).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.commands.options import output_folder
from app.context import build_context


def train_agent(
    out: Annotated[Path, typer.Option(help="Run folder: model/ and agent_grpo.json.")],
    base: Annotated[
        str | None, typer.Option(help="The agent's model folder (default: the embedded SmolLM2).")
    ] = None,
    engine: Annotated[str | None, typer.Option(help="The world model's engine.")] = None,
    model: Annotated[str | None, typer.Option(help="The world model's model id.")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")] = None,
    domain: Annotated[str, typer.Option(help="The tasks' domain.")] = "terminal",
    tasks: Annotated[
        str,
        typer.Option(
            help="Training starts: `checked` (the live tasks with a check) or a JSONL file "
            "(as `awp rollout --tasks`); hold evaluation tasks out of it."
        ),
    ] = "checked",
    steps: Annotated[int, typer.Option(help="GRPO optimizer steps.", min=1)] = 4,
    num_generations: Annotated[
        int, typer.Option(help="Completions per prompt (the GRPO group).", min=2)
    ] = 2,
    max_completion_length: Annotated[
        int, typer.Option(help="Tokens per completion (one action).", min=1)
    ] = 48,
    learning_rate: Annotated[float, typer.Option(help="The optimizer's rate.", min=0.0)] = 1e-5,
    max_new_tokens: Annotated[
        int | None, typer.Option(help="The world model's completion budget.", min=1)
    ] = None,
    seed: Annotated[int, typer.Option(help="The trainer's seed.")] = 0,
) -> None:
    """Train an agent with GRPO in simulation; reward: the world model's predicted check."""
    from app.training import base_folder
    from backend.envs.sim.agent_grpo import AgentGrpoConfig, fresh_folder
    from backend.envs.sim.agent_grpo import train_agent as run_grpo
    from backend.envs.sim.defaults import DEFAULT_REWARD
    from backend.envs.sim.episode import EnvOptions
    from backend.envs.sim.rewards import RewardOptions, build_reward
    from backend.envs.sim.rollout import RolloutRunner
    from backend.envs.sim.tasks import episode_specs
    from backend.spec import Purpose

    output_folder(out)
    fresh_folder(out)
    with build_context(max_new_tokens=max_new_tokens) as context:
        settings = context.settings
        agent = base_folder(context, base)
        # The agent trains against the bare world model: no real transitions shown or answered.
        world = context.simulator(
            context.world_spec(
                Purpose.ROLLOUT,
                engine=engine,
                model=model,
                base_url=base_url,
                grounding=False,
                record_answers=False,
            )
        )
        reward = build_reward(DEFAULT_REWARD, RewardOptions(judge=world.engine))
        options = EnvOptions(
            backing="sim",
            max_steps=2,
            record=False,
            params=settings.sampling(),
            history_mode=settings.history_mode,
            live_config=settings.live_config(),
            live_pool=context.live_pool,
        )
        # Each start gets its live start state (as --sim-to-real gives it), so the prompt the
        # policy trains on is the one it is measured on.
        runner = RolloutRunner(world, reward, options)
        specs = [runner.with_live_start(spec) for spec in episode_specs(domain, tasks)]
        config = AgentGrpoConfig(
            base=agent,
            out=out,
            steps=steps,
            num_generations=num_generations,
            max_completion_length=max_completion_length,
            learning_rate=learning_rate,
            seed=seed,
        )
        results = run_grpo(config, specs, world, reward, options)
    typer.echo(
        f"Trained {results.steps} steps on {len(results.tasks)} {results.domain} tasks in "
        f"{results.world}: mean reward {results.reward_mean} over {len(results.rewards)} "
        f"completions ({results.train_seconds:g} s)."
    )
    typer.echo(f"Wrote {results.model_dir}: use it as `awp rollout --agent {results.model_dir}`.")


def register(cli: typer.Typer) -> None:
    """Add `train-agent` to the CLI."""
    cli.command("train-agent")(train_agent)
