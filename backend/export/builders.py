"""Export formats: each turns one record into zero or more rows of its row model.

Formats are registered by name (`FORMATS`), so the CLI, the UI and tests share one list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pydantic import BaseModel

from backend.export.prompt import answer, prompt_messages
from backend.export.records import ExportContext, ExportRecord
from backend.export.reward_rows import build_reward
from backend.export.rows import (
    AgentWorldBenchExportRow,
    DPORow,
    KTORow,
    RewardRow,
    SFTRow,
)
from backend.history import state_after
from backend.registry import Registry
from backend.types import Trajectory, Turn

AWB_SOURCE = "agentworld-playground"


Builder = Callable[[ExportRecord, ExportContext], Iterator[BaseModel]]


@dataclass(frozen=True)
class ExportFormat:
    """A registered export format.

    Attributes:
        name: the `--format` value.
        row_model: the pydantic model of its rows (also gives the Arrow schema).
        build: record -> rows.
        needs_annotation: only annotated predictions can produce rows.
        description: one line for help texts and dataset cards.

    """

    name: str
    row_model: type[BaseModel]
    build: Builder
    needs_annotation: bool
    description: str


def _changed(record: ExportRecord) -> bool:
    corrected = record.annotation.corrected_observation if record.annotation else None
    return corrected is not None and corrected.strip() != record.predicted_observation.strip()


def build_sft(record: ExportRecord, ctx: ExportContext) -> Iterator[BaseModel]:
    """One row: the corrected observation as the completion."""
    if record.annotation is None or not record.annotation.corrected_observation.strip():
        return
    yield SFTRow(
        prompt=prompt_messages(record, ctx.prompt_of(record)),
        completion=answer(record.domain, record.annotation.corrected_observation),
        **record.links(),
    )


def build_dpo(record: ExportRecord, ctx: ExportContext) -> Iterator[BaseModel]:
    """One pair when the annotator changed the prediction: the correction over the prediction."""
    if record.annotation is None or not _changed(record):
        return
    yield DPORow(
        prompt=prompt_messages(record, ctx.prompt_of(record)),
        chosen=answer(record.domain, record.annotation.corrected_observation),
        rejected=answer(record.domain, record.predicted_observation),
        **record.links(),
    )


def build_kto(record: ExportRecord, ctx: ExportContext) -> Iterator[BaseModel]:
    """The prediction labelled good or bad, plus the correction (good) when it differs.

    The label is the annotator's accept/reject; without one, whether the prediction was kept
    unchanged.
    """
    annotation = record.annotation
    if annotation is None:
        return
    prompt = prompt_messages(record, ctx.prompt_of(record))
    changed = _changed(record)
    label = annotation.accept if annotation.accept is not None else not changed
    yield KTORow(
        prompt=prompt,
        completion=answer(record.domain, record.predicted_observation),
        label=label,
        completion_source="prediction",
        **record.links(),
    )
    if changed:
        yield KTORow(
            prompt=prompt,
            completion=answer(record.domain, annotation.corrected_observation),
            label=True,
            completion_source="correction",
            **record.links(),
        )


def build_agentworldbench(record: ExportRecord, ctx: ExportContext) -> Iterator[BaseModel]:
    """A benchmark item for the step: teacher-forced history, the correction as ground truth."""
    from backend.data.agentworldbench import trajectory_to_rows

    if record.annotation is None:
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
            Turn(action=record.action, observation=record.annotation.corrected_observation),
        ],
        source=AWB_SOURCE,
        licence="see dataset card",
    )
    (row,) = trajectory_to_rows(trajectory, system, [len(trajectory.turns)])
    row["id"] = str(row["id"])
    yield AgentWorldBenchExportRow(**row, **record.links())


FORMATS: Registry[ExportFormat] = Registry("export format")
for _format in (
    ExportFormat("sft", SFTRow, build_sft, True, "prompt/completion: the corrected observation."),
    ExportFormat(
        "dpo", DPORow, build_dpo, True, "prompt/chosen/rejected: correction over prediction."
    ),
    ExportFormat(
        "kto", KTORow, build_kto, True, "prompt/completion/label: prediction accepted or not."
    ),
    ExportFormat("reward", RewardRow, build_reward, False, "prompt, reference, reward components."),
    ExportFormat(
        "agentworldbench",
        AgentWorldBenchExportRow,
        build_agentworldbench,
        True,
        "official AgentWorldBench rows with the correction as ground truth.",
    ),
):
    FORMATS.register(_format.name, _format)
