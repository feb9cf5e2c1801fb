"""The dataset card (README.md) written beside exported data and pushed to the Hub with it."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from backend.benchmark.provenance import metric_versions
from backend.domains import BUILTIN
from backend.export.builders import ExportFormat

TRAINERS = {
    "sft": "SFTTrainer",
    "dpo": "DPOTrainer (or RewardTrainer)",
    "kto": "KTOTrainer",
    "reward": "GRPOTrainer with `backend.export.rewards.world_model_reward`",
    "agentworldbench": "the AgentWorldBench judge (`awp bench`)",
    "atif": "agent trainers and viewers that read Harbor's ATIF",
}


def dataset_card(
    export_format: ExportFormat,
    rows: int,
    filters: Mapping[str, object],
    data_files: str | None = None,
) -> str:
    """Markdown with YAML front matter describing an export.

    Args:
        export_format: the format exported.
        rows: how many rows were written.
        filters: the export options (domain, since, min rating), recorded for provenance.
        data_files: a glob of the data files in a Hub repository, when pushing plain files.

    """
    model = export_format.row_model
    version = model.model_fields["schema_version"].default
    front = [
        "---",
        "license: other",
        "tags:",
        "- world-model",
        "- agentworld-playground",
        f"- {export_format.name}",
    ]
    if data_files:
        front += [
            "configs:",
            "- config_name: default",
            "  data_files:",
            "  - split: train",
            f"    path: {data_files}",
        ]
    front.append("---")
    columns = "\n".join(
        f"| `{name}` | {info.description or ''} |" for name, info in model.model_fields.items()
    )
    used = ", ".join(f"{k}={v}" for k, v in filters.items() if v is not None) or "none"
    domain = filters.get("domain")
    versions = metric_versions({str(domain)} if domain else set(BUILTIN))
    listed = ", ".join(f"`{name}` v{version}" for name, version in versions.items())
    return "\n".join(
        [
            *front,
            "",
            f"# AgentWorld Playground export: `{export_format.name}`",
            "",
            f"{export_format.description} Rows: {rows}. Row schema `{model.__name__}` version "
            f"{version}. Exported {datetime.now(UTC):%Y-%m-%d %H:%M} UTC with filters: {used}.",
            "",
            f"Intended for TRL's {TRAINERS.get(export_format.name, 'trainers')}. Predictions come "
            "from language world models; corrections and ratings from human annotators. The "
            "licence of the underlying trajectories applies; check it before sharing.",
            "",
            "| column | meaning |",
            "|---|---|",
            columns,
            "",
            "Scores are named by metric and version; a value is only comparable with values of "
            f"the same version. Metric versions at export time: {listed}.",
            "",
        ]
    )
