"""`awp rollout`: run an agent's episodes in the world model, a live environment, or both."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO

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

if TYPE_CHECKING:
    from app.context import AppContext
    from backend.envs.sim.honesty import HonestyMeter
    from backend.envs.sim.leaderboard import Leaderboard
    from backend.envs.sim.report import EpisodeRow, Summary
    from backend.envs.sim.service import RolloutParts, RolloutPlan


Domains = Annotated[
    str, typer.Option(help="Domain, or several comma-separated (terminal,web,...).")
]
Agents = Annotated[
    str,
    typer.Option(
        help=f"`{REPLAY}`, `random[:SEED]`, `scripted[:SHARE]` or ENGINE[:MODEL][@T]; several, "
        "comma-separated, are ranked (with --sim-to-real: the policy leaderboard).",
    ),
]
WorldEngine = Annotated[str | None, typer.Option(help="The world model's engine.")]
WorldModel = Annotated[str | None, typer.Option(help="The world model's model id.")]
BaseUrl = Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")]
Tasks = Annotated[
    str,
    typer.Option(help="`bundled`, `live` (the live tasks), `blank`, or a JSONL file."),
]
Episodes = Annotated[int, typer.Option(help="Episodes per domain.", min=1)]
Backing = Annotated[
    str,
    typer.Option(
        help="sim (world model), live (real), shadow (real + predicted), hybrid (exact "
        "executors where the domain's routing policy allows, the world model elsewhere).",
    ),
]
SimToReal = Annotated[
    bool,
    typer.Option(
        help="Replay each simulated episode live: divergence, agreement. The world model "
        "then runs without grounding and record answers (its live twins would be in them).",
    ),
]
Reward = Annotated[str, typer.Option(help="Reward model: reference, task_judge or live.")]
Judge = Annotated[
    str | None,
    typer.Option(help="Engine of the task_judge reward (default: the world's)."),
]
MaxSteps = Annotated[int, typer.Option(help="Steps before truncation.", min=1)]
Batch = Annotated[int, typer.Option(help="Episodes stepped together.", min=1)]
MaxNewTokens = Annotated[
    int | None,
    typer.Option(help="World-model completion budget.", min=1),
]
AgentMaxNewTokens = Annotated[int, typer.Option(help="Agent completion budget.", min=1)]
Record = Annotated[bool, typer.Option(help="Store episodes as sessions.")]
Out = Annotated[Path, typer.Option(help="Folder for rollouts.jsonl and summary.json.")]
World = Annotated[
    Path | None,
    typer.Option(help="A world file: every episode starts there, with its seed and prompt."),
]
Replays = Annotated[
    int,
    typer.Option(help="With --sim-to-real: replays of each episode in sim (variance).", min=0),
]


def rollout(
    domain: Domains = "",
    agent: Agents = "transformers",
    engine: WorldEngine = None,
    model: WorldModel = None,
    base_url: BaseUrl = None,
    tasks: Tasks = "bundled",
    episodes: Episodes = 1,
    env: Backing = "sim",
    sim_to_real: SimToReal = False,
    reward: Reward = DEFAULT_REWARD,
    judge: Judge = None,
    max_steps: MaxSteps = DEFAULT_MAX_STEPS,
    batch: Batch = DEFAULT_BATCH,
    max_new_tokens: MaxNewTokens = None,
    agent_max_new_tokens: AgentMaxNewTokens = AGENT_MAX_NEW_TOKENS,
    record: Record = True,
    out: Out = Path("rollouts"),
    world: World = None,
    replays: Replays = 0,
) -> None:
    """Run agent episodes; write rollouts.jsonl and summary.json, store episodes in SQL."""
    from app.commands.live import say_limits
    from app.context import build_context
    from backend.envs.sim.episode import backing_named
    from backend.envs.sim.service import RolloutPlan

    domains = _domains(domain, world)
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
        world=str(world) if world is not None else None,
        replays=replays,
    )
    with build_context(max_new_tokens=max_new_tokens) as context:
        if env != "sim" or sim_to_real:
            say_limits(context.settings)
        parts = _parts(context, (engine, model, base_url), plan, record)
        out.mkdir(parents=True, exist_ok=True)
        summary = _run_writing(context, plan, parts, out)
    _report(summary, out)


def _domains(domain: str, world: Path | None) -> tuple[str, ...]:
    """The domains `--domain` names; none is allowed only with a world file (it names one).

    Raises:
        BadInputError: no domain is named and no world file is given.
    """
    domains = tuple(name.strip() for name in domain.split(",") if name.strip())
    if not domains and world is None:
        message = "Give --domain (or --world, whose file names its domain)."
        raise BadInputError(
            f"--domain {domain!r} names no domain. {message}" if domain else message
        )
    return domains


def _parts(
    context: AppContext,
    world_model: tuple[str | None, str | None, str | None],
    plan: RolloutPlan,
    record: bool,
) -> RolloutParts:
    """What the episodes run on: the world model (engine, model, base URL), agents, stores."""
    from backend.envs.sim.service import RolloutParts, rollout_world

    engine, model, base_url = world_model
    settings = context.settings
    world = context.world_spec(**rollout_world(plan), engine=engine, model=model, base_url=base_url)
    return RolloutParts(
        world=context.simulator(world),
        engines=context.engine,
        params=world.sampling,
        history_mode=world.history_mode,
        live_config=settings.live_config(),
        recorder=context.sessions if record else None,
        trajectories=context.trajectories if record else None,
        min_confidence=world.hybrid_min_confidence,
        live_pool=context.live_pool,
    )


def _run_writing(context: AppContext, plan: RolloutPlan, parts: RolloutParts, out: Path) -> Summary:
    """Run the plan as one stored run, writing each finished episode to rollouts.jsonl.

    Each episode is written, and flushed, as it finishes: a killed run keeps every complete
    episode and no half-finished one. The file is opened at the first finished episode, so a
    run refused before one (a world in another domain, an engine that is down) leaves an earlier
    run's file as it was.
    """
    from tqdm import tqdm

    from storage.rollout_runs import record_rollouts

    with ExitStack() as files, tqdm(total=plan.total, desc="episodes", unit="ep") as bar:
        handles: list[TextIO] = []

        def finished(row: EpisodeRow) -> None:
            if not handles:
                path = out / "rollouts.jsonl"
                handles.append(files.enter_context(path.open("w", encoding="utf-8")))
            handles[0].write(row.model_dump_json() + "\n")
            handles[0].flush()
            bar.update(1)

        outcome = record_rollouts(context.runs, plan, parts, finished, out_dir=str(out.resolve()))
    return outcome.summary


def _report(summary: Summary, out: Path) -> None:
    """Write summary.json (only once every episode is done) and print each domain's figures."""
    (out / "summary.json").write_text(summary.model_dump_json(indent=2), encoding="utf-8")
    for name, figures in summary.domains.items():
        typer.echo(f"{name}: {json.dumps(figures.model_dump())}")
    if summary.honesty is not None:
        show_meter(summary.honesty, out / "honesty.png")
    if summary.leaderboard is not None:
        show_board(summary.leaderboard, out / "leaderboard.png")
    typer.echo(f"Wrote {out / 'rollouts.jsonl'} and {out / 'summary.json'}")


def show_meter(meter: HonestyMeter, picture: Path) -> None:
    """Print the honesty meter's table and save its plot."""
    from backend.envs.sim.honesty import METER_HEADERS, meter_table
    from backend.envs.sim.honesty_plot import meter_figure

    typer.echo("Honesty meter (" + " | ".join(METER_HEADERS) + "):")
    for row in meter_table(meter):
        typer.echo("  " + " | ".join("-" if v is None else str(v) for v in row))
    meter_figure(meter).savefig(picture, dpi=110)
    typer.echo(f"Saved the meter's plot to {picture}")


def show_board(board: Leaderboard, picture: Path) -> None:
    """Print the policy leaderboard and its rank agreement, and save its plot."""
    from backend.envs.sim.leaderboard import BOARD_HEADERS, board_table, rank_table
    from backend.envs.sim.leaderboard_plot import board_figure

    typer.echo("Policy leaderboard (" + " | ".join(BOARD_HEADERS) + "):")
    for row in board_table(board):
        typer.echo("  " + " | ".join(str(v) for v in row))
    ranks = rank_table(board)
    typer.echo("Rank agreement (" + " | ".join(map(str, ranks["headers"])) + "):")  # type: ignore[call-overload]
    for row in ranks["data"]:  # type: ignore[attr-defined]
        typer.echo("  " + " | ".join("-" if v is None else str(v) for v in row))
    board_figure(board).savefig(picture, dpi=110)
    typer.echo(f"Saved the leaderboard's plot to {picture}")


def register(cli: typer.Typer) -> None:
    """Add `rollout` to the CLI."""
    cli.command()(rollout)
