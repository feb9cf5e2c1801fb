"""Benchmark runs: one row per run, so the UI lists past runs from SQL instead of folders.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 05:15:26.925881
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
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
    with op.batch_alter_table("bench_run", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bench_run_owner"), ["owner"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("bench_run", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bench_run_owner"))

    op.drop_table("bench_run")
