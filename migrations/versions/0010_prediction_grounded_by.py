"""Grounding provenance: each prediction names the real transitions it was shown.

One nullable JSON column on `prediction`: the provenance ids (`<trajectory id>#<turn>`,
`annotation:<id>`) of the demonstrations in its prompt. Predictions stored before it read None
(not known), which is not the same as an empty list (made without grounding).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02 02:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("prediction", schema=None) as batch_op:
        batch_op.add_column(sa.Column("grounded_by", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("prediction", schema=None) as batch_op:
        batch_op.drop_column("grounded_by")
