"""Who answered each step, and the model's confidence in each prediction.

`step.answered_by` (model, record, executor, live: `backend.types.AnsweredBy`) says whose
observation the session went on from; None for recorded turns copied in as history and for
steps stored before it existed. `prediction.confidence` is the model's own confidence in [0, 1]
(token log-probabilities or the agreement of samples), None when unknown.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02 12:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("step", schema=None) as batch_op:
        batch_op.add_column(sa.Column("answered_by", sa.String(length=16), nullable=True))
        batch_op.create_index(batch_op.f("ix_step_answered_by"), ["answered_by"], unique=False)
    with op.batch_alter_table("prediction", schema=None) as batch_op:
        batch_op.add_column(sa.Column("confidence", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("prediction", schema=None) as batch_op:
        batch_op.drop_column("confidence")
    with op.batch_alter_table("step", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_step_answered_by"))
        batch_op.drop_column("answered_by")
