"""`awp live tasks` and `awp record`, and the live runs `awp simulate --live` steps in.

A live run's trajectory (source `live:<domain>`) is stored before its session's first step, so
the session can name it as its base and the run reaches Replay, Annotate and the exports.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from app.commands.options import output_file
from app.context import AppContext, build_context
from app.settings import Settings
from backend.domains.base import all_domains
from backend.envs.live import cgroups
from backend.envs.live.base import LIVE
from backend.envs.live.run import LiveRun, live_source, unavailable
from backend.errors import AWPError, BadInputError, LiveEnvironmentError
from storage.records import StoredSession

live_app = typer.Typer(help="Live environments: list their tasks.", no_args_is_help=True)


def open_run(
    settings: Settings, domain: str, task: str | None, trajectory_id: str | None = None
) -> LiveRun:
    """Start a live run of `domain` at `task`.

    Raises:
        LiveEnvironmentError: live environments are switched off, or this one cannot run here.
        UnknownNameError: no such task.
    """
    if not settings.live_enabled:
        raise LiveEnvironmentError("Live environments are switched off (AWP_LIVE_ENABLED=false).")
    say_limits(settings)
    run = LiveRun(domain, settings.live_config(), trajectory_id)
    try:
        run.start(task)
    except BaseException:
        run.close()
        raise
    return run


def say_limits(settings: Settings) -> None:
    """Print, on stderr, which limits bound the live sandboxes this command starts.

    The same one sentence the Playground and the Rollouts page show (`cgroups.limits_held`), so
    whoever starts live work from a shell knows whether the sandbox or only each process is
    bounded; stderr keeps the command's results on stdout as they were.
    """
    typer.echo(cgroups.limits_held(settings.live_config()), err=True)


PREDICTED = ("model", "record")
"""Answerers of steps a hybrid session never ran live (so a replay leaves them out)."""


def resume_run(settings: Settings, context: AppContext, stored: StoredSession) -> LiveRun:
    """A fresh live run standing where a stored live session stands (its actions replayed).

    Only the actions the live environment really ran are replayed: a hybrid session's steps
    the model (or the record) answered never ran there.

    Raises:
        BadInputError: the session was not recorded live.
    """
    base = stored.base_trajectory_id
    trajectory = context.trajectories.get(base) if base else None
    if trajectory is None or trajectory.source != live_source(stored.domain):
        raise BadInputError(
            f"Session {stored.id} was not recorded in a live environment; continue it without "
            "--live, or start a live session with --live."
        )
    run = open_run(settings, stored.domain, trajectory.metadata.get("live_task"), base)
    try:
        run.replay([step.action for step in stored.steps if step.answered_by not in PREDICTED])
    except BaseException:
        run.close()
        raise
    return run


@live_app.command("tasks")
def tasks(
    domain: Annotated[str | None, typer.Option(help="Only this domain.")] = None,
) -> None:
    """List each live environment's tasks (start states) and their checks, or why one cannot run."""
    from backend.envs.live import load_builtin_live

    load_builtin_live()
    listed_domains = [d.name for d in all_domains() if d.live or d.recorded_only]
    for name in [domain] if domain else listed_domains:
        reason = unavailable(name)
        if reason:
            typer.echo(f"{name}: not available here. {reason}")
            continue
        listed = LIVE.get(name).tasks()
        checked = sum(task.check is not None for task in listed)
        typer.echo(f"{name}: {len(listed)} tasks, {checked} with a success check")
        for task in listed:
            typer.echo(f"  {task.name:<34} {task.description}")
            if task.check is not None:
                typer.echo(f"  {'':<34} check: {task.check.description}")


def read_actions(path: Path) -> list[str]:
    """The actions of an `awp record` file: a JSON array, one action per element.

    An element that is itself JSON (a terminal keystroke list, a tool call) is written back as
    JSON text; a string is taken as it is.

    Raises:
        BadInputError: the file is missing, not JSON, or not a non-empty array.
    """
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInputError(f"Actions file not found: {path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise BadInputError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, list) or not data:
        raise BadInputError(f"{path} must hold a JSON array with one action per element.")
    return [item if isinstance(item, str) else json.dumps(item) for item in data]


def record(
    domain: Annotated[str, typer.Option(help="Domain of the live environment.")],
    actions: Annotated[Path, typer.Option(help="JSON array of actions, one per element.")],
    out: Annotated[Path, typer.Option(help="Where to write AgentWorldBench rows (JSONL).")],
    task: Annotated[
        str | None, typer.Option(help="Start state (see `awp live tasks`); default per domain.")
    ] = None,
) -> None:
    """Run actions in a live environment and write the transitions as AgentWorldBench rows.

    The rows (one per turn, its history before it) are what `awp import agentworldbench` and
    `awp bench --dataset` read; the run is also stored as a trajectory of source `live:<domain>`.
    """
    from backend.data.agentworldbench import trajectory_to_rows
    from backend.domains.base import get_domain

    given = read_actions(actions)
    output_file(out)
    with build_context() as context:
        run = open_run(context.settings, domain, task)
        try:
            check = get_domain(domain).validate
            for number, action in enumerate(given, start=1):
                try:
                    run.act(check(action, run.prompt_context()))
                except AWPError as exc:
                    raise BadInputError(f"{actions}: action {number}: {exc}") from None
            trajectory = run.trajectory()
        finally:
            run.close()
        context.trajectories.upsert(trajectory)
        system = context.prompts.system_prompt(domain, trajectory.prompt_context())
    rows = trajectory_to_rows(trajectory, system)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    rewards = [r for r in trajectory.metadata.get("rewards", []) if r is not None]
    reward = f"; environment reward {sum(rewards):g}" if rewards else ""
    typer.echo(
        f"Recorded {len(rows)} turns of {trajectory.id} ({trajectory.metadata['live_task']})"
        f"{reward}; wrote {out}. The trajectory is stored too (source {trajectory.source})."
    )


def register(cli: typer.Typer) -> None:
    """Mount `awp live` and `awp record`."""
    cli.add_typer(live_app, name="live")
    cli.command()(record)
