"""`awp arena report|judge`: indistinguishability, leaderboards, and the judge's battle votes."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from app.commands.options import JudgeBaseUrl, JudgeModel
from app.context import build_context

if TYPE_CHECKING:
    from backend.compare.report import ArenaReport

arena_app = typer.Typer(
    help="Which one is real? and the model arena: reports and the judge's votes.",
    no_args_is_help=True,
)


def _interval(low: float | None, high: float | None, percent: bool = True) -> str:
    if low is None or high is None:
        return "-"
    return f"{low:.0%}-{high:.0%}" if percent else f"{low:.0f}-{high:.0f}"


def format_report(report: ArenaReport) -> str:
    """The report as plain text tables."""
    lines = ["Which one is real? (50% = people cannot tell the model from reality)"]
    for row in report.real:
        rate = row.rate
        shown = "-" if rate.rate is None else f"{rate.rate:.0%}"
        lines.append(
            f"  [{row.source}] {row.model} [{row.domain}]: {shown} "
            f"(95% {_interval(rate.low, rate.high)}, {rate.votes} votes: {rate.fooled} fooled, "
            f"{rate.cannot_tell} cannot tell, {rate.spotted} spotted)"
        )
    if not report.real:
        lines.append("  no votes yet")
    lines.append("Arena leaderboards (Bradley-Terry, Elo scale, 95% bootstrap interval)")
    for board in report.leaderboards:
        lines.append(f"  [{board.source}] {board.domain}: {board.votes} votes")
        for r in board.ratings:
            lines.append(
                f"    {r.rank}. {r.contender}: {r.rating:.0f} "
                f"({_interval(r.low, r.high, percent=False)}), {r.wins}/{r.votes} won"
            )
    if not report.leaderboards:
        lines.append("  no votes yet")
    for same in report.judge_vs_people:
        share = "-" if same.share is None else f"{same.share:.0%}"
        lines.append(f"Judge picked what people picked [{same.domain}]: {share} of {same.pairs}")
    return "\n".join(lines)


@arena_app.command("report")
def report(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    rounds: Annotated[
        int | None, typer.Option(help="Bootstrap resamples (default AWP_ARENA_BOOTSTRAP_ROUNDS).")
    ] = None,
) -> None:
    """Indistinguishability per model and domain, leaderboards, and the judge against people."""
    from backend.compare.report import arena_report

    with build_context() as context:
        store = context.arena
        result = arena_report(
            store.real_counts(),
            store.battle_counts(),
            store.judge_human_counts(),
            context.settings.arena_bootstrap_rounds if rounds is None else rounds,
        )
    if as_json:
        typer.echo(json.dumps(result.as_json(), indent=2))
    else:
        typer.echo(format_report(result))


@arena_app.command("judge")
def judge(
    judge_engine: Annotated[str, typer.Option("--judge", help="Engine that votes.")],
    judge_model: JudgeModel = None,
    judge_base_url: JudgeBaseUrl = None,
    domain: Annotated[str | None, typer.Option(help="Only battles of this domain.")] = None,
    limit: Annotated[int | None, typer.Option(help="At most this many battles.", min=1)] = None,
) -> None:
    """Let the LLM judge vote on the battles people voted on ("which is closer to the truth?")."""
    from backend.compare.judge_votes import PairItem, judge_pairs

    with build_context() as context:
        engine = context.engine(judge_engine, judge_model, judge_base_url)
        store = context.arena
        voter = f"judge:{engine.name}:{engine.model}"
        pairs = store.pairs_to_judge(voter, domain, limit)
        items = [
            PairItem(
                domain=p.context.domain,
                action=p.context.action,
                first=p.first,
                second=p.second,
                reference=p.context.real or "",
                history=p.context.history,
                previous=p.context.previous,
            )
            for p in pairs
        ]
        verdicts = judge_pairs(engine, items) if items else []
        voted = 0
        for pair, verdict in zip(pairs, verdicts, strict=True):
            if verdict.chosen is not None:
                store.vote_pair(pair, voter, verdict.chosen, source="judge")
                voted += 1
    typer.echo(
        f"{voter} voted on {voted} of {len(pairs)} battles"
        + (f" ({len(pairs) - voted} answers without a choice)." if voted < len(pairs) else ".")
    )


def register(cli: typer.Typer) -> None:
    """Mount `awp arena`."""
    cli.add_typer(arena_app, name="arena")
