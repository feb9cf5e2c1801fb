"""Training runs from the UI: a run is a job (`backend.jobs`); its record is read from SQL.

Runs go through `app.training.run_training` (handed in as `Services.train`), the same code as
`awp train`, so every run is a training record of the run store and a folder under
`<data dir>/train/`. The job counts each stage (the held-out benchmarks' items, the training
steps) and its Cancel stops the trainer after the current step, checkpointed, the run recorded
`interrupted`. Only admins train or change the Playground's model.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from backend.engines.local_model import holds_model
from backend.errors import BadInputError
from backend.jobs import Job
from backend.training.config import TrainConfig
from backend.training.evaluate import EvalTable, format_eval_table
from storage.run_kinds import TrainRun
from ui.services import Services
from ui.users import AccessDeniedError, User

RUN_HEADERS = ["run", "date", "method", "data", "status", "step", "loss", "tokens/s"]


@dataclass(frozen=True)
class TrainRequest:
    """What the Train page asks for: a small run on the embedded (or configured) model."""

    method: str
    data: str
    max_steps: int | None
    max_minutes: float | None
    eval_split: float
    eval_limit: int | None
    eval_max_new_tokens: int
    lora: bool


def _admin(user: User) -> None:
    if not user.is_admin:
        raise AccessDeniedError("Only admins can train models or change the Playground's model.")


def start(services: Services, user: User, owner: str, request: TrainRequest) -> Job:
    """Start a run as a job owned by `owner`; its result is the id of its stored run.

    Raises:
        AccessDeniedError: the user is not an admin.
        BadInputError: training is not available in this server.
    """
    _admin(user)
    train = services.train
    if train is None:
        raise BadInputError("Training is not available in this server.")
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")
    out = services.data_dir / "train" / f"{stamp}-{request.method}"
    config = TrainConfig(
        method=request.method,
        data=request.data,
        out=out,
        lora=request.lora,
        max_steps=request.max_steps,
        max_minutes=request.max_minutes,
        eval_split=request.eval_split,
        eval_limit=request.eval_limit,
        eval_max_new_tokens=request.eval_max_new_tokens,
        grad_accum=1,
    )

    def work(job: Job) -> int | None:
        # Reading the data and preparing the base model (a first download) take a while.
        job.begin_stage("reading the data", None, "items")
        train(config, owner)
        return job.view().run_id

    title = f"Training {request.method} on {request.data}"
    return services.jobs.submit("train", owner, title, work, unit="items")


def run_rows(runs: list[TrainRun]) -> list[list[str]]:
    """The runs table, newest first."""
    rows = []
    for run in runs:
        loss = f"{run.losses[-1][1]:.3f}" if run.losses else ""
        rate = f"{run.tokens_per_s:.0f}" if run.tokens_per_s else ""
        step = f"{run.done}/{run.total}" if run.total else str(run.done)
        date = run.created_at.strftime("%Y-%m-%d %H:%M")
        rows.append([str(run.id), date, run.method, run.data_source, run.status, step, loss, rate])
    return rows


def run_report(run: TrainRun) -> str:
    """Status, progress and (once finished) the before/after table of one run, as Markdown."""
    lines = [f"**Run #{run.id}** ({run.method} on {run.data_source}): {run.status}.", ""]
    if run.total:
        lines += [f"Step {run.done} of {run.total}.", ""]
    if run.message:
        lines.append(f"Stopped: {run.message}")
    if run.eval_table:
        table = EvalTable.model_validate(run.eval_table)
        lines += ["", "Held-out headline per domain, before (base) and after (tuned):", ""]
        lines.append(format_eval_table(table))
    if run.model_dir:
        lines.append(f"\nModel folder: `{run.model_dir}`")
    return "\n".join(lines)


def use_model(services: Services, user: User, run: TrainRun) -> str:
    """Make a finished run's model the Playground's transformers model.

    Raises:
        AccessDeniedError: the user is not an admin.
        BadInputError: the run has no model (not finished), or its folder is relative or
            holds no model (moved or deleted since): every person's step would fail on it.
    """
    _admin(user)
    if run.model_dir is None:
        raise BadInputError(f"Run #{run.id} has no model yet ({run.status}).")
    folder = Path(run.model_dir)
    if not folder.is_absolute() or not holds_model(folder):
        raise BadInputError(
            f"Run #{run.id}'s model folder {run.model_dir} is not an absolute folder holding a "
            "model (config.json): the Playground keeps its model. Retrain the run, or set "
            "AWP_MODEL to the folder's absolute path."
        )
    services.tuned_model.set(run.model_dir)
    return f"The Playground's transformers engine now uses run #{run.id}'s model."
