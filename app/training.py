"""Wires `backend.training` to storage and engines; the CLI and the Train page share it.

`recorded` reads the bundled recordings and every trajectory stored in SQL (recorded, imported
or recorded live; a stored one replaces a bundled one of the same id); `corrections` builds the
method's export format from annotations in SQL with the export builders; anything else is the
path of an export file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.context import AppContext
from backend.engines.base import engine_spec
from backend.engines.local_model import holds_model
from backend.errors import BadInputError
from backend.training.config import TrainConfig
from backend.training.events import ProgressEvent, ProgressListener
from backend.training.methods import METHODS, Method
from backend.training.results import TrainResults
from backend.training.sources import TrainData, from_rows, from_trajectories, read_export
from backend.types import Trajectory

RECORDED = "recorded"
CORRECTIONS = "corrections"


def recorded_trajectories(context: AppContext) -> list[Trajectory]:
    """The bundled recordings plus every stored trajectory, by id (stored ones win)."""
    from backend.data.bundled import load_bundled

    by_id = {t.id: t for t in load_bundled()}
    by_id.update((t.id, t) for t in context.trajectories.iter_trajectories())
    return [by_id[key] for key in sorted(by_id)]


def correction_rows(context: AppContext, method: Method) -> Iterator[dict[str, Any]]:
    """Rows of the method's export format built from every annotated prediction."""
    from backend.export.builders import FORMATS
    from backend.export.records import ExportContext
    from storage.export_source import ExportQuery, iter_export_records

    export_format = FORMATS.get(method.export_format)
    ctx = ExportContext(system_prompt=context.prompts.system_prompt)
    records = iter_export_records(
        context.database.session_factory, ExportQuery(annotated_only=True), context.trust
    )
    for record in records:
        for row in export_format.build(record, ctx):
            yield row.model_dump()


def train_data(context: AppContext, method_name: str, data: str) -> TrainData:
    """The examples of a source.

    Raises:
        UnknownNameError: no such method.
        BadInputError: the source cannot feed the method, or holds nothing usable.
    """
    method = METHODS.get(method_name)
    if data == RECORDED:
        trajectories = recorded_trajectories(context)
        return from_trajectories(trajectories, method, context.prompts.system_prompt)
    if data == CORRECTIONS:
        return from_rows(correction_rows(context, method), method, "corrections from SQL")
    return from_rows(read_export(Path(data)), method, f"export {data}")


def model_folder(path: Path, what: str) -> Path:
    """`path` as an absolute model folder, checked before any work uses it.

    A relative path means another folder to a process started elsewhere, so it is resolved
    here once; a folder without `config.json` is no transformers model.

    Raises:
        BadInputError: `path` holds no model.
    """
    folder = path.expanduser().resolve()
    if not holds_model(folder):
        raise BadInputError(f"{what} {path}: no model folder there (no config.json).")
    return folder


def base_folder(context: AppContext, base: str | None) -> Path:
    """The base model folder: the one given, else the Playground's own model.

    That is the configured model folder when an in-process engine serves one (`AWP_MODEL`,
    `Capabilities.in_process`), else the embedded model (prepared on first use).
    """
    from backend.engines.embedded import prepare_embedded_model

    settings = context.settings
    if base:
        return model_folder(Path(base), "--base")
    if engine_spec(settings.engine).capabilities.in_process and settings.model:
        return Path(settings.model)
    return prepare_embedded_model(settings.data_dir)


def run_training(
    context: AppContext,
    config: TrainConfig,
    listener: ProgressListener | None = None,
    show_progress: bool = True,
    owner: str | None = None,
) -> TrainResults:
    """Train as configured, benchmarking the held-out split before and after, recorded in SQL.

    The run is recorded in the run store (`storage.run_lifecycle.recorded`): started, advanced
    at every logged step, and ended finished, failed or (Ctrl-C) interrupted.

    Raises:
        AWPError: a bad source, method or output folder; an engine failure in the benchmark.
    """
    from backend.spec import Purpose, WorldSpec
    from backend.training.evaluate import MODEL_ENGINE, eval_params
    from backend.training.service import train
    from storage.run_kinds import TrainRun
    from storage.run_lifecycle import recorded

    # The data is read first: a bad source or method is refused at once, before the base model
    # is prepared (a first download or conversion takes a minute) and before a run is listed.
    data = train_data(context, config.method, config.data)
    base = base_folder(context, config.base)

    # The before/after evaluation measures the model: no grounding, no record answers.
    def world(engine: str, model: str | None) -> WorldSpec:
        params = eval_params(config.eval_max_new_tokens, config.seed)
        return context.world_spec(
            Purpose.TRAINING_EVAL, engine=engine, model=model, sampling=params
        )

    spec = TrainRun.new_spec(
        config.method,
        config.data,
        str(base),
        config.model_dump(mode="json"),
        world(MODEL_ENGINE, str(base)),
    )
    out_dir = str(config.out.resolve())
    with recorded(context.runs, TrainRun, spec, out_dir=out_dir, owner=owner) as run:

        def record(event: ProgressEvent) -> None:
            metrics = {"loss": event.loss, "tokens_per_s": event.tokens_per_s}
            run.progress(
                event.step,
                event.max_steps,
                **{name: value for name, value in metrics.items() if value is not None},
            )
            if listener is not None:
                listener(event)

        results = train(
            config,
            data,
            base,
            lambda engine, model: context.simulator(world(engine, model)),
            record,
            show_progress,
        )
        table = results.eval.model_dump() if results.eval is not None else {}
        run.conclude(
            TrainRun.new_results(results.data_hash, table, results.model_dir, results.tokens_per_s)
        )
    return results
