"""Training runs: one row per `awp train` or Train-page run (progress, losses, eval table).

One new table, nothing existing changes.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 07:55:27.674334
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
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
    with op.batch_alter_table("train_run", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_train_run_owner"), ["owner"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("train_run", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_train_run_owner"))

    op.drop_table("train_run")
