"""Reality has provenance: where each observation came from, who wrote a correction, the world spec.

- `turn.provenance`, `step.provenance`, `prediction.provenance`: the source of the observation
  beside it (`backend.provenance`: recorded, live, correction, predicted), as JSON.
- `annotation.author_role`: the author's role when they wrote it, which the trust rule reads
  (`backend.trust`); None for annotations written before it was kept (never trusted alone).
- `session.world`: the world spec the session ran under (`backend.spec.WorldSpec`).

Rows stored before are given their source from what they already say, then the source is
required wherever an observation is: a turn's from its trajectory (`source` `live:<domain>` is
a live run, any other an import of that dataset, the file from its metadata), a step's from its
`origin` (recorded: its session's base recording, turn index + 1; live: a run of its domain at
its time; annotator: the step's first annotation), a prediction's from its engine (`record`:
the transition its `model` names, `live`/`executor`: the run, any other: the engine and model).
The JSON is `backend.provenance.stored`'s, written here without importing the app.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04 19:00:00.000000
"""

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500
LIVE_PREFIX = "live:"
EXACT = ("record", "executor", "live")

_trajectory = sa.table(
    "trajectory",
    sa.column("id", sa.String),
    sa.column("domain", sa.String),
    sa.column("source", sa.String),
    sa.column("metadata", sa.JSON),
)
_turn = sa.table(
    "turn",
    sa.column("id", sa.Integer),
    sa.column("trajectory_id", sa.String),
    sa.column("index", sa.Integer),
    sa.column("observation", sa.Text),
    sa.column("provenance", sa.JSON(none_as_null=True)),
)
_session = sa.table(
    "session",
    sa.column("id", sa.Integer),
    sa.column("domain", sa.String),
    sa.column("base_trajectory_id", sa.String),
)
_step = sa.table(
    "step",
    sa.column("id", sa.Integer),
    sa.column("session_id", sa.Integer),
    sa.column("index", sa.Integer),
    sa.column("real_observation", sa.Text),
    sa.column("origin", sa.String),
    sa.column("created_at", sa.DateTime),
    sa.column("provenance", sa.JSON(none_as_null=True)),
)
_prediction = sa.table(
    "prediction",
    sa.column("id", sa.Integer),
    sa.column("step_id", sa.Integer),
    sa.column("engine", sa.String),
    sa.column("model", sa.String),
    sa.column("created_at", sa.DateTime),
    sa.column("provenance", sa.JSON(none_as_null=True)),
)
_annotation = sa.table(
    "annotation",
    sa.column("id", sa.Integer),
    sa.column("prediction_id", sa.Integer),
    sa.column("annotator_id", sa.Integer),
    sa.column("author_role", sa.String),
)
_annotator = sa.table("annotator", sa.column("id", sa.Integer), sa.column("name", sa.String))


def _at(value: Any) -> str | None:
    """A stored time as the JSON `Live.at` is written in (UTC, ISO 8601)."""
    if not isinstance(value, datetime):
        return None
    aware = value if value.tzinfo else value.replace(tzinfo=UTC)
    return aware.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _live(sandbox: str, run: str | None, at: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "live", "sandbox": sandbox}
    if run:
        out["run"] = run
    stamp = _at(at)
    if stamp:
        out["at"] = stamp
    return out


def _recorded(dataset: str, row_id: str, turn: int | None, file: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "recorded", "dataset": dataset, "row_id": row_id}
    if isinstance(file, str) and file:
        out["file"] = file
    if turn is not None:
        out["turn"] = turn
    return out


def _of_recording(trajectory: Any, trajectory_id: str, turn: int, at: Any = None) -> dict:
    """The source of a recording's 1-based turn: a live run's, or its import's."""
    if trajectory is None:
        return _recorded("recording", trajectory_id, turn)
    if trajectory.source.startswith(LIVE_PREFIX):
        return _live(trajectory.domain, trajectory_id, at)
    metadata = trajectory.metadata if isinstance(trajectory.metadata, dict) else {}
    file = metadata.get("file")
    return _recorded(trajectory.source, trajectory_id, turn, file)


def _fill(
    connection: sa.Connection,
    table: sa.TableClause,
    query: sa.Select,
    source: Callable[[Any], dict[str, Any]],
) -> None:
    """Give each row of `query` its source, a batch of rows (and one statement) at a time."""
    key = table.c.id
    update = (
        sa.update(table)
        .where(key == sa.bindparam("row_id"))
        .values(provenance=sa.bindparam("value", type_=sa.JSON(none_as_null=True)))
    )
    after = None
    while True:
        page = query if after is None else query.where(key > after)
        rows = connection.execute(page.order_by(key).limit(BATCH)).all()
        if not rows:
            return
        connection.execute(update, [{"row_id": row.id, "value": source(row)} for row in rows])
        after = rows[-1].id


def _correction(connection: sa.Connection, step_id: int) -> dict[str, Any] | None:
    """The source of an annotator's truth: the step's first annotation."""
    found = connection.execute(
        sa.select(_annotation.c.id, _annotation.c.author_role, _annotator.c.name)
        .join(_prediction, _prediction.c.id == _annotation.c.prediction_id)
        .join(_annotator, _annotator.c.id == _annotation.c.annotator_id)
        .where(_prediction.c.step_id == step_id)
        .order_by(_annotation.c.id)
        .limit(1)
    ).first()
    if found is None:
        return None
    out: dict[str, Any] = {
        "kind": "correction",
        "annotation_id": found.id,
        "author": found.name,
        "review": "unreviewed",
        "trusted_by": "",
    }
    if found.author_role:
        out["role"] = found.author_role
    return out


def _backfill(connection: sa.Connection) -> None:
    trajectories: dict[str, Any] = {
        row.id: row for row in connection.execute(sa.select(_trajectory))
    }
    sessions = {row.id: row for row in connection.execute(sa.select(_session))}

    def turn(row: Any) -> dict[str, Any]:
        return _of_recording(trajectories.get(row.trajectory_id), row.trajectory_id, row.index + 1)

    def step(row: Any) -> dict[str, Any]:
        owner = sessions.get(row.session_id)
        base = owner.base_trajectory_id if owner is not None else None
        value: dict[str, Any] | None = None
        if row.origin == "live":
            value = _live(owner.domain if owner is not None else "unknown", base, row.created_at)
        elif row.origin == "annotator":
            value = _correction(connection, row.id)
        if value is None:
            recording = trajectories.get(base) if base else None
            value = _of_recording(
                recording, base or f"session:{row.session_id}", row.index + 1, row.created_at
            )
        return value

    _fill(
        connection,
        _turn,
        sa.select(_turn.c.id, _turn.c.trajectory_id, _turn.c.index).where(
            _turn.c.provenance.is_(None)
        ),
        turn,
    )
    _fill(
        connection,
        _step,
        sa.select(
            _step.c.id, _step.c.session_id, _step.c.index, _step.c.origin, _step.c.created_at
        ).where(_step.c.real_observation.is_not(None), _step.c.provenance.is_(None)),
        step,
    )
    _fill(
        connection,
        _prediction,
        sa.select(
            _prediction.c.id,
            _prediction.c.step_id,
            _prediction.c.engine,
            _prediction.c.model,
            _prediction.c.created_at,
        ).where(_prediction.c.provenance.is_(None)),
        lambda row: _answer(connection, row, trajectories, sessions),
    )


def _answer(
    connection: sa.Connection, row: Any, trajectories: dict[str, Any], sessions: dict[int, Any]
) -> dict[str, Any]:
    """A stored prediction's source, from its engine and model (see the module's docstring)."""
    if row.engine not in EXACT:
        return {"kind": "predicted", "engine": row.engine, "model": row.model or ""}
    if row.engine == "record":
        ref = row.model or ""
        if ref.startswith("annotation:") and ref.removeprefix("annotation:").isdigit():
            number = int(ref.removeprefix("annotation:"))
            found = connection.execute(
                sa.select(_annotation.c.id, _annotation.c.author_role, _annotator.c.name)
                .join(_annotator, _annotator.c.id == _annotation.c.annotator_id)
                .where(_annotation.c.id == number)
            ).first()
            out: dict[str, Any] = {
                "kind": "correction",
                "annotation_id": number,
                "author": found.name if found is not None else "unknown",
                "review": "unreviewed",
                "trusted_by": "",
            }
            if found is not None and found.author_role:
                out["role"] = found.author_role
            return out
        trajectory_id, _, turn = ref.rpartition("#")
        number = int(turn) if turn.isdigit() else None
        return _of_recording(trajectories.get(trajectory_id), trajectory_id or ref, number or 0)
    step = connection.execute(
        sa.select(_step.c.session_id).where(_step.c.id == row.step_id)
    ).first()
    owner = sessions.get(step.session_id) if step is not None else None
    model = row.model or ""
    domain = model.removeprefix(LIVE_PREFIX) if model.startswith(LIVE_PREFIX) else None
    domain = domain or (owner.domain if owner is not None else "unknown")
    sandbox = f"executor:{domain}" if row.engine == "executor" else domain
    return _live(sandbox, owner.base_trajectory_id if owner is not None else None, row.created_at)


def upgrade() -> None:
    for table in ("turn", "step", "prediction"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("provenance", sa.JSON(none_as_null=True), nullable=True))
    with op.batch_alter_table("annotation", schema=None) as batch_op:
        batch_op.add_column(sa.Column("author_role", sa.String(length=16), nullable=True))
    with op.batch_alter_table("session", schema=None) as batch_op:
        batch_op.add_column(sa.Column("world", sa.JSON(none_as_null=True), nullable=True))
    _backfill(op.get_bind())
    with op.batch_alter_table("turn", schema=None) as batch_op:
        batch_op.create_check_constraint(
            op.f("ck_turn_provenance"), "observation IS NULL OR provenance IS NOT NULL"
        )
    with op.batch_alter_table("step", schema=None) as batch_op:
        batch_op.create_check_constraint(
            op.f("ck_step_provenance"), "real_observation IS NULL OR provenance IS NOT NULL"
        )
    with op.batch_alter_table("prediction", schema=None) as batch_op:
        batch_op.alter_column("provenance", existing_type=sa.JSON(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("session", schema=None) as batch_op:
        batch_op.drop_column("world")
    with op.batch_alter_table("annotation", schema=None) as batch_op:
        batch_op.drop_column("author_role")
    for table in ("prediction", "step", "turn"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            if table != "prediction":
                batch_op.drop_constraint(op.f(f"ck_{table}_provenance"), type_="check")
            batch_op.drop_column("provenance")
