"""Initial schema: trajectories, sessions, steps, predictions, scores and annotations.

Revision ID: 0001
Revises:
Create Date: 2026-11-30 04:20:08.688619
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "annotator",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_annotator")),
        sa.UniqueConstraint("name", name=op.f("uq_annotator_name")),
    )
    op.create_table(
        "trajectory",
        sa.Column("id", sa.String(length=255), nullable=False),
        sa.Column("domain", sa.String(length=64), nullable=False),
        sa.Column("system_prompt", sa.Text(), nullable=True),
        sa.Column("task", sa.Text(), nullable=False),
        sa.Column("initial_state", sa.Text(), nullable=True),
        sa.Column("source", sa.String(length=255), nullable=False),
        sa.Column("licence", sa.String(length=255), nullable=False),
        sa.Column("commit", sa.String(length=255), nullable=True),
        sa.Column("notes", sa.Text(), nullable=False),
        sa.Column("action_inferred", sa.Boolean(), nullable=False),
        sa.Column("metadata", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_trajectory")),
    )
    with op.batch_alter_table("trajectory", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_trajectory_domain"), ["domain"], unique=False)
        batch_op.create_index(batch_op.f("ix_trajectory_source"), ["source"], unique=False)

    op.create_table(
        "session",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("domain", sa.String(length=64), nullable=False),
        sa.Column("engine", sa.String(length=64), nullable=False),
        sa.Column("model", sa.String(length=255), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("history_mode", sa.String(length=16), nullable=False),
        sa.Column("system_prompt", sa.Text(), nullable=True),
        sa.Column("initial_state", sa.Text(), nullable=True),
        sa.Column("task", sa.Text(), nullable=False),
        sa.Column("owner", sa.String(length=255), nullable=True),
        sa.Column("base_trajectory_id", sa.String(length=255), nullable=True),
        sa.Column("parent_session_id", sa.Integer(), nullable=True),
        sa.Column("branched_at", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "history_mode IN ('teacher_forced', 'closed_loop', 'blind')",
            name=op.f("ck_session_history_mode"),
        ),
        sa.ForeignKeyConstraint(
            ["base_trajectory_id"],
            ["trajectory.id"],
            name=op.f("fk_session_base_trajectory_id_trajectory"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["parent_session_id"],
            ["session.id"],
            name=op.f("fk_session_parent_session_id_session"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_session")),
    )
    with op.batch_alter_table("session", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_session_base_trajectory_id"), ["base_trajectory_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_session_domain"), ["domain"], unique=False)
        batch_op.create_index(batch_op.f("ix_session_owner"), ["owner"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_session_parent_session_id"), ["parent_session_id"], unique=False
        )

    op.create_table(
        "turn",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("trajectory_id", sa.String(length=255), nullable=False),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("observation", sa.Text(), nullable=True),
        sa.Column("predicted", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["trajectory_id"],
            ["trajectory.id"],
            name=op.f("fk_turn_trajectory_id_trajectory"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_turn")),
        sa.UniqueConstraint("trajectory_id", "index", name=op.f("uq_turn_trajectory_id_index")),
    )
    op.create_table(
        "step",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("real_observation", sa.Text(), nullable=True),
        sa.Column("origin", sa.String(length=16), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "origin IS NULL OR origin IN ('recorded', 'live', 'annotator')",
            name=op.f("ck_step_origin"),
        ),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["session.id"],
            name=op.f("fk_step_session_id_session"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_step")),
        sa.UniqueConstraint("session_id", "index", name=op.f("uq_step_session_id_index")),
    )
    op.create_table(
        "prediction",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("step_id", sa.Integer(), nullable=False),
        sa.Column("observation", sa.Text(), nullable=False),
        sa.Column("reasoning", sa.Text(), nullable=False),
        sa.Column("raw_text", sa.Text(), nullable=False),
        sa.Column("finish_reason", sa.String(length=32), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("latency_s", sa.Float(), nullable=False),
        sa.Column("engine", sa.String(length=64), nullable=False),
        sa.Column("model", sa.String(length=255), nullable=False),
        sa.Column("diagnostics", sa.JSON(), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("history_mode", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["step_id"], ["step.id"], name=op.f("fk_prediction_step_id_step"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_prediction")),
    )
    with op.batch_alter_table("prediction", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_prediction_created_at"), ["created_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_prediction_engine"), ["engine"], unique=False)
        batch_op.create_index(batch_op.f("ix_prediction_step_id"), ["step_id"], unique=False)

    op.create_table(
        "annotation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("prediction_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("corrected_observation", sa.Text(), nullable=False),
        sa.Column("rating_format", sa.Integer(), nullable=True),
        sa.Column("rating_factuality", sa.Integer(), nullable=True),
        sa.Column("rating_consistency", sa.Integer(), nullable=True),
        sa.Column("rating_realism", sa.Integer(), nullable=True),
        sa.Column("rating_quality", sa.Integer(), nullable=True),
        sa.Column("accept", sa.Boolean(), nullable=True),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("notes", sa.Text(), nullable=False),
        sa.Column("source", sa.String(length=32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "rating_consistency IS NULL OR rating_consistency BETWEEN 1 AND 5",
            name=op.f("ck_annotation_consistency"),
        ),
        sa.CheckConstraint(
            "rating_factuality IS NULL OR rating_factuality BETWEEN 1 AND 5",
            name=op.f("ck_annotation_factuality"),
        ),
        sa.CheckConstraint(
            "rating_format IS NULL OR rating_format BETWEEN 1 AND 5",
            name=op.f("ck_annotation_format"),
        ),
        sa.CheckConstraint(
            "rating_quality IS NULL OR rating_quality BETWEEN 1 AND 5",
            name=op.f("ck_annotation_quality"),
        ),
        sa.CheckConstraint(
            "rating_realism IS NULL OR rating_realism BETWEEN 1 AND 5",
            name=op.f("ck_annotation_realism"),
        ),
        sa.ForeignKeyConstraint(
            ["annotator_id"],
            ["annotator.id"],
            name=op.f("fk_annotation_annotator_id_annotator"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["prediction_id"],
            ["prediction.id"],
            name=op.f("fk_annotation_prediction_id_prediction"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_annotation")),
        sa.UniqueConstraint(
            "prediction_id", "annotator_id", name=op.f("uq_annotation_prediction_id_annotator_id")
        ),
    )
    with op.batch_alter_table("annotation", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_annotation_annotator_id"), ["annotator_id"], unique=False
        )

    op.create_table(
        "claim",
        sa.Column("prediction_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["annotator_id"],
            ["annotator.id"],
            name=op.f("fk_claim_annotator_id_annotator"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["prediction_id"],
            ["prediction.id"],
            name=op.f("fk_claim_prediction_id_prediction"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("prediction_id", name=op.f("pk_claim")),
    )
    with op.batch_alter_table("claim", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_claim_annotator_id"), ["annotator_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_claim_expires_at"), ["expires_at"], unique=False)

    op.create_table(
        "score",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("prediction_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("version", sa.String(length=64), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["prediction_id"],
            ["prediction.id"],
            name=op.f("fk_score_prediction_id_prediction"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_score")),
        sa.UniqueConstraint(
            "prediction_id", "name", "version", name=op.f("uq_score_prediction_id_name_version")
        ),
    )
    op.create_table(
        "annotation_edit",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("annotation_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("editor", sa.String(length=255), nullable=False),
        sa.Column("corrected_observation", sa.Text(), nullable=False),
        sa.Column("ratings", sa.JSON(), nullable=False),
        sa.Column("accept", sa.Boolean(), nullable=True),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("notes", sa.Text(), nullable=False),
        sa.Column("source", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["annotation_id"],
            ["annotation.id"],
            name=op.f("fk_annotation_edit_annotation_id_annotation"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_annotation_edit")),
        sa.UniqueConstraint(
            "annotation_id", "version", name=op.f("uq_annotation_edit_annotation_id_version")
        ),
    )


def downgrade() -> None:
    op.drop_table("annotation_edit")
    op.drop_table("score")
    with op.batch_alter_table("claim", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_claim_expires_at"))
        batch_op.drop_index(batch_op.f("ix_claim_annotator_id"))

    op.drop_table("claim")
    with op.batch_alter_table("annotation", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_annotation_annotator_id"))

    op.drop_table("annotation")
    with op.batch_alter_table("prediction", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_prediction_step_id"))
        batch_op.drop_index(batch_op.f("ix_prediction_engine"))
        batch_op.drop_index(batch_op.f("ix_prediction_created_at"))

    op.drop_table("prediction")
    op.drop_table("step")
    op.drop_table("turn")
    with op.batch_alter_table("session", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_session_parent_session_id"))
        batch_op.drop_index(batch_op.f("ix_session_owner"))
        batch_op.drop_index(batch_op.f("ix_session_domain"))
        batch_op.drop_index(batch_op.f("ix_session_base_trajectory_id"))

    op.drop_table("session")
    with op.batch_alter_table("trajectory", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_trajectory_source"))
        batch_op.drop_index(batch_op.f("ix_trajectory_domain"))

    op.drop_table("trajectory")
    op.drop_table("annotator")
