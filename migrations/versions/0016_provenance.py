"""Reality has provenance: where each observation came from, who wrote a correction, the world spec.

- `turn.provenance`, `step.provenance`, `prediction.provenance`: the source of the observation
  beside it (`backend.provenance`: recorded, live, correction, predicted), as JSON.
- `annotation.author_role`: the author's role when they wrote it, which the trust rule reads
  (`backend.trust`); None for annotations written before it was kept (never trusted alone).
- `session.world`: the world spec the session ran under (`backend.spec.WorldSpec`).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04 19:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    for table in ("turn", "step", "prediction"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("provenance", sa.JSON(none_as_null=True), nullable=True))
    with op.batch_alter_table("annotation", schema=None) as batch_op:
        batch_op.add_column(sa.Column("author_role", sa.String(length=16), nullable=True))
    with op.batch_alter_table("session", schema=None) as batch_op:
        batch_op.add_column(sa.Column("world", sa.JSON(none_as_null=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("session", schema=None) as batch_op:
        batch_op.drop_column("world")
    with op.batch_alter_table("annotation", schema=None) as batch_op:
        batch_op.drop_column("author_role")
    for table in ("prediction", "step", "turn"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("provenance")
