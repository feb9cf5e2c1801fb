"""`awp rollout`: run an agent's episodes in the world model, a live environment, or both."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from app.commands.options import output_folder
from backend.envs.sim.defaults import (
    AGENT_MAX_NEW_TOKENS,
    DEFAULT_BATCH,
    DEFAULT_MAX_STEPS,
    DEFAULT_REWARD,
    REPLAY,
)
from backend.errors import BadInputError


def rollout(
    domain: Annotated[
        str, typer.Option(help="Domain, or several comma-separated (terminal,web,...).")
    ],
    agent: Annotated[
        str,
        typer.Option(help=f"`{REPLAY}` (the recordings' actions) or ENGINE[:MODEL] as the agent."),
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
    ] = DEFAULT_REWARD,
    judge: Annotated[
        str | None, typer.Option(help="Engine of the task_judge reward (default: the world's).")
    ] = None,
    max_steps: Annotated[
        int, typer.Option(help="Steps before truncation.", min=1)
    ] = DEFAULT_MAX_STEPS,
    batch: Annotated[int, typer.Option(help="Episodes stepped together.", min=1)] = DEFAULT_BATCH,
    max_new_tokens: Annotated[
        int | None, typer.Option(help="World-model completion budget.", min=1)
    ] = None,
    agent_max_new_tokens: Annotated[
        int, typer.Option(help="Agent completion budget.", min=1)
    ] = AGENT_MAX_NEW_TOKENS,
    record: Annotated[bool, typer.Option(help="Store episodes as sessions.")] = True,
    out: Annotated[Path, typer.Option(help="Folder for rollouts.jsonl and summary.json.")] = Path(
        "rollouts"
    ),
) -> None:
    """Run agent episodes; write rollouts.jsonl and summary.json, store episodes in SQL."""
    from tqdm import tqdm

    from app.context import build_context
    from backend.envs.sim.episode import backing_named
    from backend.envs.sim.report import EpisodeRow
    from backend.envs.sim.service import RolloutParts, RolloutPlan
    from storage.rollout_runs import record_rollouts

    domains = tuple(name.strip() for name in domain.split(",") if name.strip())
    if not domains:
        raise BadInputError(f"--domain {domain!r} names no domain (e.g. terminal).")
    if reward == "live" and env == "sim" and not sim_to_real:
        raise BadInputError(
            "--reward live scores what a live environment did: use --env live or shadow."
        )
    output_folder(out)
    plan = RolloutPlan(
        domains=domains,
        agent=agent,
        episodes=episodes,
        tasks=tasks,
        backing=backing_named(env),
        max_steps=max_steps,
        reward=reward,
        judge=judge,
        batch=batch,
        sim_to_real=sim_to_real,
        agent_max_new_tokens=agent_max_new_tokens,
    )
    with build_context(max_new_tokens=max_new_tokens) as context:
        settings = context.settings
        parts = RolloutParts(
            world=context.simulator(engine, model, base_url),
            engines=context.engine,
            params=settings.sampling(),
            history_mode=settings.history_mode,
            live_config=settings.live_config(),
            recorder=context.sessions if record else None,
            trajectories=context.trajectories if record else None,
            live_pool=context.live_pool,
        )
        out.mkdir(parents=True, exist_ok=True)
        # Each episode is written, and flushed, as it finishes: a killed run keeps every complete
        # episode and no half-finished one; summary.json is written only once all are done.
        with (
            (out / "rollouts.jsonl").open("w", encoding="utf-8") as handle,
            tqdm(total=plan.total, desc="episodes", unit="ep") as bar,
        ):

            def finished(row: EpisodeRow) -> None:
                handle.write(row.model_dump_json() + "\n")
                handle.flush()
                bar.update(1)

            outcome = record_rollouts(
                context.runs, plan, parts, finished, out_dir=str(out.resolve())
            )
    summary = outcome.summary
    (out / "summary.json").write_text(summary.model_dump_json(indent=2), encoding="utf-8")
    for name, figures in summary.domains.items():
        typer.echo(f"{name}: {json.dumps(figures.model_dump())}")
    typer.echo(f"Wrote {out / 'rollouts.jsonl'} and {out / 'summary.json'}")


def register(cli: typer.Typer) -> None:
    """Add `rollout` to the CLI."""
    cli.command()(rollout)
