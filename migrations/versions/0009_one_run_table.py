"""One run table for every kind: benchmark and training runs move into `run`, rollouts join.

`bench_run` and `train_run` had drifted apart (training had no `interrupted`); their rows move
into `run` with the kind-specific fields in `spec` and `results`, and both tables are dropped.
Benchmark runs keep their ids, so `session.bench_run_id` still names them (its foreign key now
points at `run`); training runs are numbered after them. The downgrade moves benchmark and
training runs back (an interrupted training run reads `failed` there) and drops rollout runs,
which had no table before.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02 01:30:00.000000
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _stamps() -> tuple[sa.ColumnClause[Any], ...]:
    return (
        sa.column("created_at", sa.DateTime(timezone=True)),
        sa.column("updated_at", sa.DateTime(timezone=True)),
    )


run = sa.table(
    "run",
    sa.column("id", sa.Integer()),
    sa.column("kind", sa.String()),
    sa.column("status", sa.String()),
    sa.column("message", sa.Text()),
    sa.column("out_dir", sa.Text()),
    sa.column("owner", sa.String()),
    sa.column("done", sa.Integer()),
    sa.column("total", sa.Integer()),
    sa.column("failures", sa.Integer()),
    sa.column("spec", sa.JSON()),
    sa.column("points", sa.JSON()),
    sa.column("results", sa.JSON()),
    *_stamps(),
)
bench_run = sa.table(
    "bench_run",
    sa.column("id", sa.Integer()),
    sa.column("dataset", sa.Text()),
    sa.column("engines", sa.JSON()),
    sa.column("judge", sa.String()),
    sa.column("out_dir", sa.Text()),
    sa.column("status", sa.String()),
    sa.column("message", sa.Text()),
    sa.column("item_count", sa.Integer()),
    sa.column("failure_count", sa.Integer()),
    sa.column("summary", sa.JSON()),
    sa.column("owner", sa.String()),
    *_stamps(),
)
train_run = sa.table(
    "train_run",
    sa.column("id", sa.Integer()),
    sa.column("method", sa.String()),
    sa.column("data_source", sa.Text()),
    sa.column("data_hash", sa.String()),
    sa.column("base_model", sa.Text()),
    sa.column("hyper_params", sa.JSON()),
    sa.column("out_dir", sa.Text()),
    sa.column("status", sa.String()),
    sa.column("message", sa.Text()),
    sa.column("step", sa.Integer()),
    sa.column("max_steps", sa.Integer()),
    sa.column("tokens_per_s", sa.Float()),
    sa.column("losses", sa.JSON()),
    sa.column("eval_table", sa.JSON()),
    sa.column("model_dir", sa.Text()),
    sa.column("owner", sa.String()),
    *_stamps(),
)


def _bench_to_run(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "kind": "bench",
        "status": row.status,
        "message": row.message,
        "out_dir": row.out_dir,
        "owner": row.owner,
        "done": row.item_count,
        "total": 0,
        "failures": row.failure_count,
        "spec": {"dataset": row.dataset, "engines": row.engines, "judge": row.judge},
        "points": [],
        "results": row.summary,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }


def _train_to_run(row: Any, run_id: int) -> dict[str, Any]:
    points: list[dict[str, Any]] = [{"done": step, "loss": loss} for step, loss in row.losses]
    results: dict[str, Any] = {}
    if row.status == "finished":
        results = {
            "data_hash": row.data_hash,
            "eval_table": row.eval_table,
            "model_dir": row.model_dir,
            "tokens_per_s": row.tokens_per_s,
        }
    elif points and row.tokens_per_s is not None:
        points[-1]["tokens_per_s"] = row.tokens_per_s
    return {
        "id": run_id,
        "kind": "train",
        "status": row.status,
        "message": row.message,
        "out_dir": row.out_dir,
        "owner": row.owner,
        "done": row.step,
        "total": row.max_steps,
        "failures": 0,
        "spec": {
            "method": row.method,
            "data_source": row.data_source,
            "base_model": row.base_model,
            "hyper_params": row.hyper_params,
        },
        "points": points,
        "results": results,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }


def _advance_id_sequence(connection: sa.Connection, table: str) -> None:
    """Rows inserted with explicit ids leave PostgreSQL's sequence behind; catch it up."""
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
            f"COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
        )


def _move_runs_in() -> None:
    connection = op.get_bind()
    benches = connection.execute(sa.select(bench_run).order_by(bench_run.c.id)).all()
    trains = connection.execute(sa.select(train_run).order_by(train_run.c.id)).all()
    after = max((row.id for row in benches), default=0)
    rows = [_bench_to_run(row) for row in benches]
    rows += [_train_to_run(row, after + number) for number, row in enumerate(trains, start=1)]
    if rows:
        connection.execute(sa.insert(run), rows)
    _advance_id_sequence(connection, "run")


def _create_run_table() -> None:
    op.create_table(
        "run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("message", sa.Text(), nullable=True),
        sa.Column("out_dir", sa.Text(), nullable=True),
        sa.Column("owner", sa.String(length=255), nullable=True),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("spec", sa.JSON(), nullable=False),
        sa.Column("points", sa.JSON(), nullable=False),
        sa.Column("results", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('bench', 'train', 'rollout')", name=op.f("ck_run_kind")),
        sa.CheckConstraint(
            "status IN ('running', 'finished', 'failed', 'interrupted')",
            name=op.f("ck_run_status"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_run")),
    )
    with op.batch_alter_table("run", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_run_kind"), ["kind"], unique=False)
        batch_op.create_index(batch_op.f("ix_run_owner"), ["owner"], unique=False)


def _point_session_at(old: str, new: str) -> None:
    """Re-point `session.bench_run_id`'s foreign key from table `old` to table `new`."""
    with op.batch_alter_table("session", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f(f"fk_session_bench_run_id_{old}"), type_="foreignkey")
        batch_op.create_foreign_key(
            batch_op.f(f"fk_session_bench_run_id_{new}"),
            new,
            ["bench_run_id"],
            ["id"],
            ondelete="SET NULL",
        )


def upgrade() -> None:
    _create_run_table()
    _move_runs_in()
    _point_session_at("bench_run", "run")
    for table in ("bench_run", "train_run"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(batch_op.f(f"ix_{table}_owner"))
        op.drop_table(table)


def _create_old_tables() -> None:
    op.create_table(
        "bench_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("dataset", sa.Text(), nullable=False),
        sa.Column("engines", sa.JSON(), nullable=False),
        sa.Column("judge", sa.String(length=64), nullable=True),
        sa.Column("out_dir", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("message", sa.Text(), nullable=True),
        sa.Column("item_count", sa.Integer(), nullable=False),
        sa.Column("failure_count", sa.Integer(), nullable=False),
        sa.Column("summary", sa.JSON(), nullable=False),
        sa.Column("owner", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('running', 'finished', 'failed', 'interrupted')",
            name=op.f("ck_bench_run_status"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bench_run")),
    )
    op.create_table(
        "train_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("method", sa.String(length=16), nullable=False),
        sa.Column("data_source", sa.Text(), nullable=False),
        sa.Column("data_hash", sa.String(length=64), nullable=True),
        sa.Column("base_model", sa.Text(), nullable=False),
        sa.Column("hyper_params", sa.JSON(), nullable=False),
        sa.Column("out_dir", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("message", sa.Text(), nullable=True),
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("max_steps", sa.Integer(), nullable=False),
        sa.Column("tokens_per_s", sa.Float(), nullable=True),
        sa.Column("losses", sa.JSON(), nullable=False),
        sa.Column("eval_table", sa.JSON(), nullable=False),
        sa.Column("model_dir", sa.Text(), nullable=True),
        sa.Column("owner", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('running', 'finished', 'failed')", name=op.f("ck_train_run_status")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_train_run")),
    )
    for table in ("bench_run", "train_run"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.create_index(batch_op.f(f"ix_{table}_owner"), ["owner"], unique=False)


def _run_to_bench(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "dataset": row.spec["dataset"],
        "engines": row.spec["engines"],
        "judge": row.spec.get("judge"),
        "out_dir": row.out_dir or "",
        "status": row.status,
        "message": row.message,
        "item_count": row.done,
        "failure_count": row.failures,
        "summary": row.results,
        "owner": row.owner,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }


def _run_to_train(row: Any) -> dict[str, Any]:
    rates = [p["tokens_per_s"] for p in row.points if p.get("tokens_per_s") is not None]
    return {
        "id": row.id,
        "method": row.spec["method"],
        "data_source": row.spec["data_source"],
        "data_hash": row.results.get("data_hash"),
        "base_model": row.spec["base_model"],
        "hyper_params": row.spec.get("hyper_params", {}),
        "out_dir": row.out_dir or "",
        "status": "failed" if row.status == "interrupted" else row.status,
        "message": row.message,
        "step": row.done,
        "max_steps": row.total,
        "tokens_per_s": row.results.get("tokens_per_s", rates[-1] if rates else None),
        "losses": [[p["done"], p["loss"]] for p in row.points if p.get("loss") is not None],
        "eval_table": row.results.get("eval_table", {}),
        "model_dir": row.results.get("model_dir"),
        "owner": row.owner,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }


def _move_runs_out() -> None:
    connection = op.get_bind()
    for kind, table, convert in (
        ("bench", bench_run, _run_to_bench),
        ("train", train_run, _run_to_train),
    ):
        query = sa.select(run).where(run.c.kind == kind).order_by(run.c.id)
        rows = [convert(row) for row in connection.execute(query)]
        if rows:
            connection.execute(sa.insert(table), rows)
        _advance_id_sequence(connection, table.name)


def downgrade() -> None:
    _create_old_tables()
    _move_runs_out()
    _point_session_at("run", "bench_run")
    with op.batch_alter_table("run", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_run_owner"))
        batch_op.drop_index(batch_op.f("ix_run_kind"))
    op.drop_table("run")
