"""Exact prompts per prediction (texts stored once), session kinds, context and bench links.

Predictions stored before this revision keep `prompt` NULL; exports rebuild their chat with the
one history rule (`backend.history`).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 03:32:07.736301
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "prompt_text",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("sha256", name=op.f("pk_prompt_text")),
    )
    with op.batch_alter_table("prediction", schema=None) as batch_op:
        batch_op.add_column(sa.Column("prompt", sa.JSON(), nullable=True))

    with op.batch_alter_table("session", schema=None) as batch_op:
        batch_op.add_column(sa.Column("prompt_context", sa.JSON(), nullable=True))
        batch_op.add_column(
            sa.Column("kind", sa.String(length=16), server_default="playground", nullable=False)
        )
        batch_op.add_column(sa.Column("bench_run_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_session_bench_run_id"), ["bench_run_id"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_session_bench_run_id_bench_run"),
            "bench_run",
            ["bench_run_id"],
            ["id"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    with op.batch_alter_table("session", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("fk_session_bench_run_id_bench_run"), type_="foreignkey"
        )
        batch_op.drop_index(batch_op.f("ix_session_bench_run_id"))
        batch_op.drop_column("bench_run_id")
        batch_op.drop_column("kind")
        batch_op.drop_column("prompt_context")

    with op.batch_alter_table("prediction", schema=None) as batch_op:
        batch_op.drop_column("prompt")

    op.drop_table("prompt_text")
