"""`awp sessions list|show`: the stored sessions (Playground, Replay, CLI, benchmark) and steps."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from app.commands.options import DomainFilter
from app.context import build_context

sessions_app = typer.Typer(
    help="Stored sessions: list them, show one step by step.", no_args_is_help=True
)

ACTION_WIDTH = 60


def _short(text: str, width: int = ACTION_WIDTH) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


@sessions_app.command("list")
def list_sessions(
    domain: DomainFilter = None,
    owner: Annotated[str | None, typer.Option(help="Only this owner.")] = None,
    limit: Annotated[int, typer.Option(help="At most this many, most recent first.", min=1)] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
) -> None:
    """List sessions, most recently active first (continue one with `awp simulate --session`)."""
    with build_context() as context:
        summaries = context.sessions.list_sessions(domain=domain, owner=owner, limit=limit)
    if as_json:
        for summary in summaries:
            typer.echo(json.dumps({**vars(summary)}, default=str))
        return
    if not summaries:
        typer.echo("No sessions stored yet: `awp simulate` or the Playground makes one.")
        return
    typer.echo(f"{'id':>6}  {'kind':<10} {'domain':<9} {'engine':<12} {'history':<14} steps  last")
    for s in summaries:
        branch = f" (branch of #{s.parent_session_id})" if s.parent_session_id else ""
        typer.echo(
            f"{s.id:>6}  {s.kind:<10} {s.domain:<9} {_short(s.engine, 12):<12} "
            f"{s.history_mode:<14} {s.steps:>5}  {s.updated_at:%Y-%m-%d %H:%M}{branch}"
        )


@sessions_app.command("show")
def show(
    session_id: Annotated[int, typer.Argument(help="The session id (see `awp sessions list`).")],
    as_json: Annotated[bool, typer.Option("--json", help="The whole session as JSON.")] = False,
) -> None:
    """Show a session's settings and every step it sees, with predictions and scores."""
    with build_context() as context:
        stored = context.sessions.load_session(session_id)
    if as_json:
        typer.echo(json.dumps(_as_json(stored), ensure_ascii=False, default=str))
        return
    parent = f", branch of #{stored.parent_session_id}" if stored.parent_session_id else ""
    typer.echo(
        f"Session #{stored.id} ({stored.kind}{parent}): {stored.domain}, {stored.engine} "
        f"{stored.model}, {stored.history_mode.value}, owner {stored.owner or '-'}"
    )
    if stored.task:
        typer.echo(f"Task: {_short(stored.task, 200)}")
    for step in stored.steps:
        real = step.origin or "unknown"
        first = step.prediction
        made = ""
        if first is not None:
            scores = ", ".join(f"{s.name} {s.value:.2f}" for s in first.scores[:2])
            made = f"  prediction #{first.prediction_id} by {first.prediction.engine}"
            made += f" ({scores})" if scores else ""
        typer.echo(f"{step.index + 1:>4}. {_short(step.action)}  [real: {real}]{made}")


def _as_json(stored: Any) -> dict[str, Any]:
    """A stored session as plain JSON (predictions with their exact chats)."""
    steps = [
        {
            "step_id": step.step_id,
            "index": step.index,
            "action": step.action,
            "real_observation": step.real_observation,
            "origin": step.origin,
            "predictions": [
                {
                    "prediction_id": p.prediction_id,
                    **p.prediction.model_dump(mode="json"),
                    "params": dict(p.params),
                    "history_mode": p.history_mode,
                    "scores": [
                        {"name": s.name, "version": s.version, "value": s.value} for s in p.scores
                    ],
                }
                for p in step.predictions
            ],
        }
        for step in stored.steps
    ]
    header = {
        key: value
        for key, value in vars(stored).items()
        if key not in ("steps", "context", "params", "history_mode")
    }
    return {
        **header,
        "history_mode": stored.history_mode.value,
        "params": dict(stored.params),
        "context": stored.context.model_dump(),
        "steps": steps,
    }


def register(cli: typer.Typer) -> None:
    """Mount `awp sessions`."""
    cli.add_typer(sessions_app, name="sessions")
