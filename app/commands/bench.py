"""`awp bench`: run engines over a dataset and print the per-domain table."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from app.commands.options import JudgeBaseUrl, JudgeMaxNewTokens, JudgeModel, JudgePrompts
from app.settings import Settings
from backend.types import HistoryMode

if TYPE_CHECKING:
    from app.context import AppContext
    from backend.scoring.judge import Judge


def bench(
    dataset: Annotated[
        str, typer.Option(help="`bundled` or a path to AgentWorldBench rows (file or folder).")
    ],
    engine: Annotated[
        list[str], typer.Option(help="Engine to benchmark; repeat for several (e.g. oracle).")
    ],
    judge: Annotated[
        str | None, typer.Option(help="Engine that grades every prediction on the rubric.")
    ] = None,
    judge_model: JudgeModel = None,
    judge_base_url: JudgeBaseUrl = None,
    judge_prompts: JudgePrompts = None,
    judge_max_new_tokens: JudgeMaxNewTokens = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N items.", min=1)] = None,
    concurrency: Annotated[
        int | None, typer.Option(help="Items per batch / requests in flight.", min=1)
    ] = None,
    model: Annotated[str | None, typer.Option(help="Model id for the engines.")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")] = None,
    history_mode: Annotated[
        HistoryMode, typer.Option(help="teacher_forced (official) or blind.")
    ] = HistoryMode.TEACHER_FORCED,
    max_new_tokens: Annotated[int | None, typer.Option(help="Completion token budget.")] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Output folder for items, results and chart (default: under data dir)."),
    ] = None,
    resume: Annotated[
        bool, typer.Option(help="Continue the run in --out, skipping finished items.")
    ] = False,
) -> None:
    """Benchmark engines (baselines `persistence` and `oracle` included) over a dataset."""
    from app.context import AppContext
    from backend.benchmark.report import format_table
    from backend.benchmark.runner import RunConfig
    from backend.benchmark.service import new_run_dir, run_bench
    from backend.benchmark.sessions import BenchSessions
    from backend.errors import BadInputError
    from storage.bench_runs import record_bench

    if history_mode is HistoryMode.CLOSED_LOOP:
        raise BadInputError("awp bench runs teacher_forced or blind; closed_loop needs rollouts.")
    if resume and out is None:
        raise BadInputError("--resume needs --out: the folder of the run to continue.")
    overrides: dict[str, Any] = {"concurrency": concurrency, "max_new_tokens": max_new_tokens}
    settings = Settings(**{key: value for key, value in overrides.items() if value is not None})
    config = RunConfig(
        engines=engine,
        concurrency=settings.concurrency,
        limit=limit,
        history_mode=history_mode,
        params=settings.sampling(),
    )
    out = out or new_run_dir(settings.data_dir, engine)
    context = AppContext(settings)
    try:
        grader = build_judge(
            context, judge, judge_model, judge_base_url, judge_prompts, judge_max_new_tokens
        )
        results = record_bench(
            context.bench_runs,
            lambda run_id: run_bench(
                dataset,
                out,
                config,
                lambda name: context.simulator(name, model, base_url),
                grader,
                resume,
                BenchSessions(context.sessions, run_id),
            ),
            dataset=dataset,
            engines=engine,
            judge=judge,
            out_dir=str(out.resolve()),
            resume=resume,
        )
    finally:
        context.close()
    typer.echo(format_table(results))
    typer.echo(f"\nWrote {out / 'results.json'}, {out / 'items.jsonl'}, {out / 'per_domain.png'}")


def build_judge(
    context: AppContext,
    name: str | None,
    model: str | None,
    base_url: str | None,
    prompts_dir: Path | None,
    max_new_tokens: int | None,
) -> Judge | None:
    """The rubric judge on engine `name` (None when no judge was asked for)."""
    from backend.scoring.judge import JUDGE_PARAMS, Judge
    from backend.scoring.judge_library import JudgePromptLibrary

    if not name:
        return None
    budget = max_new_tokens or JUDGE_PARAMS.max_new_tokens
    params = JUDGE_PARAMS.model_copy(update={"max_new_tokens": budget})
    return Judge(context.engine(name, model, base_url), JudgePromptLibrary(prompts_dir), params)


def register(cli: typer.Typer) -> None:
    """Add `bench` to the CLI."""
    cli.command()(bench)
