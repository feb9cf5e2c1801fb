"""`awp bench`: run engines over a dataset and print the per-domain table."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.commands.options import (
    GroundingK,
    GroundingTokens,
    JudgeBaseUrl,
    JudgeMaxNewTokens,
    JudgeModel,
    JudgePrompts,
)
from app.context import build_context
from backend.types import HistoryMode


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
    official_judge: Annotated[
        bool,
        typer.Option(
            help="Judge exactly as the official `eval.py judge` does: its judge prompts and user "
            "template, read from the --judge-prompts folder of a QwenLM/Qwen-AgentWorld checkout."
        ),
    ] = False,
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
    grounding: Annotated[
        bool,
        typer.Option(
            help="Show each item the most similar real transitions of OTHER recordings. Off by "
            "default: the official prompt keeps the numbers comparable with published ones."
        ),
    ] = False,
    grounding_k: GroundingK = None,
    grounding_tokens: GroundingTokens = None,
    record_answers: Annotated[
        bool,
        typer.Option(
            help="Answer items that exactly match a real transition of ANOTHER recording from "
            "it, without the model. Off by default: the figures measure the model."
        ),
    ] = False,
    push: Annotated[
        str | None,
        typer.Option(
            help="Then write the Hub's evaluation results (.eval_results/) beside a model card "
            "in OUT/hub and upload them to this model repository."
        ),
    ] = None,
    results_dataset: Annotated[
        str | None,
        typer.Option(
            help="The Hub benchmark the results are for (default: Qwen/AgentWorldBench for "
            "AgentWorldBench rows)."
        ),
    ] = None,
    token: Annotated[
        str | None, typer.Option(help="Hub token (default: HF_TOKEN or `hf auth login`).")
    ] = None,
) -> None:
    """Benchmark engines (baselines `persistence` and `oracle` included) over a dataset."""
    from backend.benchmark.report import format_table
    from backend.benchmark.runner import RunConfig
    from backend.benchmark.service import new_run_dir, run_bench
    from backend.benchmark.sessions import BenchSessions
    from backend.errors import BadInputError
    from backend.spec import Purpose
    from storage.run_kinds import BenchRun
    from storage.run_lifecycle import recorded

    if history_mode is HistoryMode.CLOSED_LOOP:
        raise BadInputError("awp bench runs teacher_forced or blind; closed_loop needs rollouts.")
    if push:
        from backend.integrations.hub_results import publishing_target

        publishing_target(engine, dataset, results_dataset)
    if official_judge and not judge:
        raise BadInputError("--official-judge needs --judge: the engine that grades.")
    if resume and out is None:
        raise BadInputError("--resume needs --out: the folder of the run to continue.")
    with build_context(
        concurrency=concurrency,
        max_new_tokens=max_new_tokens,
        grounding_k=grounding_k,
        grounding_tokens=grounding_tokens,
    ) as context:
        settings = context.settings
        config = RunConfig(
            engines=engine,
            concurrency=settings.concurrency,
            limit=limit,
            history_mode=history_mode,
            params=settings.sampling(),
        )
        out = out or new_run_dir(settings.data_dir, engine)
        # The same request on the Benchmark page resolves the same worlds: grounding and
        # record answers off unless asked (`MEASURED`).
        worlds = {
            name: context.world_spec(
                Purpose.BENCH,
                engine=name,
                model=model,
                base_url=base_url,
                sampling=config.params,
                history_mode=history_mode,
                grounding=grounding,
                record_answers=record_answers,
            )
            for name in engine
        }
        judge_world = (
            context.judge_spec(
                judge, judge_model, judge_base_url, judge_max_new_tokens, official_judge
            )
            if judge
            else None
        )
        grader = (
            context.judge(
                judge,
                judge_model,
                judge_base_url,
                judge_prompts,
                judge_max_new_tokens,
                official=official_judge,
            )
            if judge
            else None
        )
        ordered = [worlds[name] for name in engine]
        spec = BenchRun.new_spec(dataset, engine, judge, ordered, judge_world)
        out_dir = str(out.resolve())
        with recorded(context.runs, BenchRun, spec, out_dir=out_dir, resume=resume) as run:
            results = run_bench(
                dataset,
                out,
                config,
                lambda name: context.simulator(worlds[name]),
                grader,
                resume,
                BenchSessions(context.sessions, run.id),
            )
            run.conclude(*BenchRun.outcome(results))
    typer.echo(format_table(results))
    typer.echo(f"\nWrote {out / 'results.json'}, {out / 'items.jsonl'}, {out / 'per_domain.png'}")
    if push:
        from backend.export.hub import push_export
        from backend.integrations.hub_results import publish_bench

        folder, card = publish_bench(results, out, dataset, results_dataset)
        typer.echo(f"Wrote the Hub's evaluation results to {folder}")
        typer.echo(f"Pushed to {push_export(folder, push, token, card, repo_type='model')}")


def register(cli: typer.Typer) -> None:
    """Add `bench` to the CLI."""
    cli.command()(bench)
