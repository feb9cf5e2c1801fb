"""`awp judge`: grade stored predictions with the rubric judge, without regenerating them."""

from __future__ import annotations

from typing import Annotated

import typer

from app.commands.options import (
    DomainFilter,
    JudgeBaseUrl,
    JudgeMaxNewTokens,
    JudgeModel,
    JudgePrompts,
)
from app.context import build_context


def judge(
    judge_engine: Annotated[str, typer.Option("--judge", help="Engine that grades.")],
    judge_model: JudgeModel = None,
    judge_base_url: JudgeBaseUrl = None,
    judge_prompts: JudgePrompts = None,
    judge_max_new_tokens: JudgeMaxNewTokens = None,
    domain: DomainFilter = None,
    engine: Annotated[str | None, typer.Option(help="Only predictions of this engine.")] = None,
    limit: Annotated[int | None, typer.Option(help="At most this many predictions.", min=1)] = None,
    rejudge: Annotated[
        bool, typer.Option(help="Also predictions already judged (their scores are replaced).")
    ] = False,
) -> None:
    """Grade stored predictions that have a real observation (ungraded ones by default).

    Verdicts are stored as `judge.<dimension>` scores of each prediction, where the agreement
    report (`awp annotations agreement`) meets them with people's ratings.
    """
    from backend.compare.judging import judge_stored
    from storage.judging import items_to_judge

    if not judge_engine:
        raise typer.BadParameter("--judge names no engine")
    with build_context() as context:
        # --judge picks the engine; --judge-model left out follows the one rule (`judge_spec`).
        grader = context.judge(
            judge_engine, judge_model, judge_base_url, judge_prompts, judge_max_new_tokens
        )
        factory = context.database.session_factory
        items = items_to_judge(factory, domain, engine, limit, rejudge)
        graded = failed = 0
        for prediction_id, result in judge_stored(grader, context.sessions, items):
            if result.failed:
                failed += 1
                typer.echo(f"prediction {prediction_id}: no verdict ({result.error})", err=True)
            else:
                graded += 1
    typer.echo(
        f"Judged {graded} of {len(items)} predictions with {judge_engine}"
        + (f"; {failed} answers had no usable verdict." if failed else ".")
    )


def register(cli: typer.Typer) -> None:
    """Add `judge` to the CLI."""
    cli.command()(judge)
