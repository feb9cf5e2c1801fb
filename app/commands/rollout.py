"""`awp rollout`: run an agent's episodes in the world model, a live environment, or both."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def rollout(
    domain: Annotated[
        str, typer.Option(help="Domain, or several comma-separated (terminal,web,...).")
    ],
    agent: Annotated[
        str,
        typer.Option(help="`replay` (the recordings' actions) or ENGINE[:MODEL] as the agent."),
    ] = "transformers",
    engine: Annotated[str | None, typer.Option(help="The world model's engine.")] = None,
    model: Annotated[str | None, typer.Option(help="The world model's model id.")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")] = None,
    tasks: Annotated[
        str, typer.Option(help="`bundled`, `live` (the live tasks), `blank`, or a JSONL file.")
    ] = "bundled",
    episodes: Annotated[int, typer.Option(help="Episodes per domain.", min=1)] = 1,
    env: Annotated[
        str, typer.Option(help="sim (world model), live (real), shadow (real + predicted).")
    ] = "sim",
    sim_to_real: Annotated[
        bool, typer.Option(help="Replay each simulated episode live: divergence, agreement.")
    ] = False,
    reward: Annotated[
        str, typer.Option(help="Reward model: reference, task_judge or live.")
    ] = "reference",
    judge: Annotated[
        str | None, typer.Option(help="Engine of the task_judge reward (default: the world's).")
    ] = None,
    max_steps: Annotated[int, typer.Option(help="Steps before truncation.", min=1)] = 10,
    batch: Annotated[int, typer.Option(help="Episodes stepped together.", min=1)] = 8,
    max_new_tokens: Annotated[
        int | None, typer.Option(help="World-model completion budget.", min=1)
    ] = None,
    agent_max_new_tokens: Annotated[
        int, typer.Option(help="Agent completion budget.", min=1)
    ] = 128,
    record: Annotated[bool, typer.Option(help="Store episodes as sessions.")] = True,
    out: Annotated[Path, typer.Option(help="Folder for rollouts.jsonl and summary.json.")] = Path(
        "rollouts"
    ),
) -> None:
    """Run agent episodes; write rollouts.jsonl and summary.json, store episodes in SQL."""
    from tqdm import tqdm

    from app.gym import env_options, world_parts
    from backend.envs.sim.agents import Agent, EngineAgent, ReplayAgent
    from backend.envs.sim.episode import backing_named
    from backend.envs.sim.report import summarize
    from backend.envs.sim.rollout import RolloutConfig, RolloutRunner
    from backend.envs.sim.tasks import episode_specs

    backing = backing_named(env)
    parts = world_parts(engine, model, reward, judge, max_new_tokens, base_url)
    settings, context, simulator = parts.settings, parts.context, parts.simulator
    try:
        chosen: Agent = ReplayAgent()
        if agent != "replay":
            name, _, agent_model = agent.partition(":")
            params = settings.sampling().model_copy(update={"max_new_tokens": agent_max_new_tokens})
            chosen = EngineAgent(context.engine(name, agent_model or None), params)
        options = env_options(settings, backing, max_steps, record)
        runner = RolloutRunner(
            simulator, parts.reward, options, context.sessions if record else None
        )
        names = [name.strip() for name in domain.split(",") if name.strip()]
        rows = []
        with tqdm(total=episodes * len(names), desc="episodes", unit="ep") as bar:
            for name in names:
                specs = episode_specs(name, tasks)
                config = RolloutConfig(episodes=episodes, batch=batch, sim_to_real=sim_to_real)
                rows += runner.run(chosen, specs, config, lambda row: bar.update(1))
        world = f"{simulator.engine.name}:{simulator.engine.model}"
        reward_name = f"{parts.reward.name}@{parts.reward.version}"
        summary = summarize(rows, env, chosen.name, world, reward_name)
    finally:
        context.close()
    out.mkdir(parents=True, exist_ok=True)
    with (out / "rollouts.jsonl").open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(row.model_dump_json() + "\n")
    (out / "summary.json").write_text(summary.model_dump_json(indent=2), encoding="utf-8")
    for name, figures in summary.domains.items():
        typer.echo(f"{name}: {json.dumps(figures.model_dump())}")
    typer.echo(f"Wrote {out / 'rollouts.jsonl'} and {out / 'summary.json'}")


def register(cli: typer.Typer) -> None:
    """Add `rollout` to the CLI."""
    cli.command()(rollout)
