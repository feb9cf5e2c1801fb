"""History cut to fit the context: each prediction says how many oldest turns its prompt left out.

One nullable integer column on `prediction`: the oldest history turns the step path dropped so
that the prompt and its output budget fit the engine's context (`backend.history.fit_context`).
Predictions stored before it read None (not known), which is not the same as 0 (none dropped).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("prediction", schema=None) as batch_op:
        batch_op.add_column(sa.Column("history_dropped", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("prediction", schema=None) as batch_op:
        batch_op.drop_column("history_dropped")
