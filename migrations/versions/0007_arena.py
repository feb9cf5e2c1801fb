"""Votes: "Which one is real?" and arena battles, by people and by the LLM judge.

Two new tables, nothing existing changes. Session kinds `arena` and `futures` need no schema
change (the kind is a plain string column).

Revision ID: 0007
Revises: 0004
Create Date: 2026-12-03 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "arena_vote",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("step_id", sa.Integer(), nullable=False),
        sa.Column("prediction_a", sa.Integer(), nullable=False),
        sa.Column("prediction_b", sa.Integer(), nullable=False),
        sa.Column("voter_id", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("domain", sa.String(length=64), nullable=False),
        sa.Column("contender_a", sa.String(length=255), nullable=False),
        sa.Column("contender_b", sa.String(length=255), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "outcome IN ('a', 'b', 'tie', 'both_bad')", name=op.f("ck_arena_vote_outcome")
        ),
        sa.CheckConstraint("source IN ('human', 'judge')", name=op.f("ck_arena_vote_source")),
        sa.ForeignKeyConstraint(
            ["prediction_a"],
            ["prediction.id"],
            name=op.f("fk_arena_vote_prediction_a_prediction"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["prediction_b"],
            ["prediction.id"],
            name=op.f("fk_arena_vote_prediction_b_prediction"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["step_id"], ["step.id"], name=op.f("fk_arena_vote_step_id_step"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["voter_id"],
            ["annotator.id"],
            name=op.f("fk_arena_vote_voter_id_annotator"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_arena_vote")),
        sa.UniqueConstraint(
            "prediction_a",
            "prediction_b",
            "voter_id",
            name=op.f("uq_arena_vote_prediction_a_prediction_b_voter_id"),
        ),
    )
    with op.batch_alter_table("arena_vote", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_arena_vote_prediction_b"), ["prediction_b"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_arena_vote_step_id"), ["step_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_arena_vote_voter_id"), ["voter_id"], unique=False)

    op.create_table(
        "real_or_not_vote",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("prediction_id", sa.Integer(), nullable=False),
        sa.Column("voter_id", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("domain", sa.String(length=64), nullable=False),
        sa.Column("engine", sa.String(length=64), nullable=False),
        sa.Column("model", sa.String(length=255), nullable=False),
        sa.Column("real_side", sa.String(length=1), nullable=False),
        sa.Column("choice", sa.String(length=16), nullable=False),
        sa.Column("confidence", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "choice IN ('A', 'B', 'cannot_tell')", name=op.f("ck_real_or_not_vote_choice")
        ),
        sa.CheckConstraint("real_side IN ('A', 'B')", name=op.f("ck_real_or_not_vote_real_side")),
        sa.CheckConstraint("source IN ('human', 'judge')", name=op.f("ck_real_or_not_vote_source")),
        sa.CheckConstraint(
            "confidence IS NULL OR confidence BETWEEN 1 AND 3",
            name=op.f("ck_real_or_not_vote_confidence"),
        ),
        sa.ForeignKeyConstraint(
            ["prediction_id"],
            ["prediction.id"],
            name=op.f("fk_real_or_not_vote_prediction_id_prediction"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["voter_id"],
            ["annotator.id"],
            name=op.f("fk_real_or_not_vote_voter_id_annotator"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_real_or_not_vote")),
        sa.UniqueConstraint(
            "prediction_id", "voter_id", name=op.f("uq_real_or_not_vote_prediction_id_voter_id")
        ),
    )
    with op.batch_alter_table("real_or_not_vote", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_real_or_not_vote_voter_id"), ["voter_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("real_or_not_vote", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_real_or_not_vote_voter_id"))

    op.drop_table("real_or_not_vote")
    with op.batch_alter_table("arena_vote", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_arena_vote_voter_id"))
        batch_op.drop_index(batch_op.f("ix_arena_vote_step_id"))
        batch_op.drop_index(batch_op.f("ix_arena_vote_prediction_b"))

    op.drop_table("arena_vote")
