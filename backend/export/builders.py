"""Export formats: each turns one record into zero or more rows of its row model.

Formats are registered by name (`FORMATS`), so the CLI, the UI and tests share one list.

An annotated record's truth comes from its verdict alone (`ExportRecord.reference`):

- accept (the prediction is the truth): sft completes with the prediction, kto labels it True,
  reward scores against it, agentworldbench takes it as ground truth; no dpo pair.
- reject (the correction is the truth): sft and agentworldbench take the correction, dpo prefers
  it over the prediction, kto labels the prediction False and the correction True, reward
  scores against the correction.
- cannot tell: no row in any format.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from backend.export.prompt import answer, prompt_messages, transition_text
from backend.export.records import ExportAnnotation, ExportContext, ExportRecord
from backend.export.reward_rows import build_reward
from backend.export.rows import (
    AgentWorldBenchExportRow,
    CPTRow,
    DPORow,
    KTORow,
    RewardRow,
    SFTRow,
)
from backend.export.trajectories import (
    AtifTrajectory,
    InspectSampleRow,
    build_atif,
    build_inspect,
    write_inspect_log,
)
from backend.history import state_after
from backend.registry import Registry
from backend.types import Trajectory, Turn
from backend.verdicts import Verdict

AWB_SOURCE = "agentworld-playground"


Builder = Callable[[ExportRecord, ExportContext], Iterator[BaseModel]]
ContainerWriter = Callable[[Iterable[BaseModel], Path], int]
"""Writes a format's rows into its own kind of file (an Inspect log); returns the row count."""


@dataclass(frozen=True)
class ExportFormat:
    """A registered export format.

    Attributes:
        name: the `--format` value.
        row_model: the pydantic model of its rows (also gives the Arrow schema).
        build: record -> rows.
        needs_annotation: only annotated predictions can produce rows.
        description: one line for help texts and dataset cards.
        json_only: its rows hold free-form JSON objects (tool arguments): JSONL only, no
            Parquet or datasets folder.
        writer: writes the rows into the format's own kind of file instead of the path's.

    """

    name: str
    row_model: type[BaseModel]
    build: Builder
    needs_annotation: bool
    description: str
    json_only: bool = False
    writer: ContainerWriter | None = None


def _rejected(record: ExportRecord) -> ExportAnnotation | None:
    """The annotation when it rejects the prediction with its correction."""
    annotation = record.annotation
    return annotation if annotation is not None and annotation.verdict is Verdict.REJECT else None


def build_sft(record: ExportRecord, ctx: ExportContext) -> Iterator[BaseModel]:
    """One row: the true observation the annotation establishes as the completion."""
    truth = record.reference if record.annotation is not None else None
    if truth is None or not truth.strip():
        return
    yield SFTRow(
        prompt=prompt_messages(record, ctx.prompt_of(record)),
        completion=answer(record.domain, truth),
        **record.links(),
    )


def build_dpo(record: ExportRecord, ctx: ExportContext) -> Iterator[BaseModel]:
    """One pair for a reject: the correction over the prediction."""
    annotation = _rejected(record)
    if annotation is None:
        return
    yield DPORow(
        prompt=prompt_messages(record, ctx.prompt_of(record)),
        chosen=answer(record.domain, annotation.corrected_observation),
        rejected=answer(record.domain, record.predicted_observation),
        **record.links(),
    )


def build_kto(record: ExportRecord, ctx: ExportContext) -> Iterator[BaseModel]:
    """The prediction labelled by the verdict, plus a reject's correction labelled good."""
    annotation = record.annotation
    if annotation is None or annotation.verdict is Verdict.CANNOT_TELL:
        return
    prompt = prompt_messages(record, ctx.prompt_of(record))
    rejected = annotation.verdict is Verdict.REJECT
    yield KTORow(
        prompt=prompt,
        completion=answer(record.domain, record.predicted_observation),
        label=not rejected,
        completion_source="prediction",
        **record.links(),
    )
    if rejected:
        yield KTORow(
            prompt=prompt,
            completion=answer(record.domain, annotation.corrected_observation),
            label=True,
            completion_source="correction",
            **record.links(),
        )


def build_cpt(record: ExportRecord, ctx: ExportContext) -> Iterator[BaseModel]:
    """One text: the transition with its best known truth (no annotation needed)."""
    truth = record.reference
    if truth is None or not truth.strip():
        return
    prompt = prompt_messages(record, ctx.prompt_of(record))
    yield CPTRow(text=transition_text(prompt, answer(record.domain, truth)), **record.links())


def build_agentworldbench(record: ExportRecord, ctx: ExportContext) -> Iterator[BaseModel]:
    """A benchmark item for the step: teacher-forced history, the annotated truth as answer."""
    from backend.data.agentworldbench import trajectory_to_rows

    truth = record.reference if record.annotation is not None else None
    if truth is None:
        return
    history = [Turn(action=t.action, observation=state_after(t) or "") for t in record.history]
    system = ctx.prompt_of(record)
    trajectory = Trajectory(
        id=f"awp-session-{record.session_id}",
        domain=record.domain,
        system_prompt=system,
        initial_state=record.initial_state,
        turns=[
            *history,
            Turn(action=record.action, observation=truth),
        ],
        source=AWB_SOURCE,
        licence="see dataset card",
    )
    (row,) = trajectory_to_rows(trajectory, system, [len(trajectory.turns)])
    row["id"] = str(row["id"])
    yield AgentWorldBenchExportRow(**row, **record.links())


FORMATS: Registry[ExportFormat] = Registry("export format")
for _format in (
    ExportFormat(
        "sft", SFTRow, build_sft, True, "prompt/completion: the accepted or corrected observation."
    ),
    ExportFormat(
        "dpo", DPORow, build_dpo, True, "prompt/chosen/rejected: correction over prediction."
    ),
    ExportFormat(
        "kto", KTORow, build_kto, True, "prompt/completion/label: prediction accepted or rejected."
    ),
    ExportFormat("cpt", CPTRow, build_cpt, False, "text: plain transition corpus (pre-training)."),
    ExportFormat("reward", RewardRow, build_reward, False, "prompt, reference, reward components."),
    ExportFormat(
        "agentworldbench",
        AgentWorldBenchExportRow,
        build_agentworldbench,
        True,
        "official AgentWorldBench rows with the annotated truth as ground truth.",
    ),
    ExportFormat(
        "atif",
        AtifTrajectory,
        build_atif,
        False,
        "Harbor ATIF trajectories: each session up to a prediction, the prediction in extra.",
        json_only=True,
    ),
    ExportFormat(
        "inspect",
        InspectSampleRow,
        build_inspect,
        False,
        "an Inspect AI eval log (.eval/.json): each session up to a prediction as a sample.",
        writer=write_inspect_log,
    ),
):
    FORMATS.register(_format.name, _format)
