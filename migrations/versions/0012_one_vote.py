"""One vote per person and item: `item_key` on both vote tables, unique with the voter.

The item is what was judged, not the rows that showed it: the recorded step with the model
(Which one is real?) or with the two contenders (arena), so drawing a fresh battle on a step
cannot buy a second vote. Votes stored before have no key (NULL never collides).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02 12:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("real_or_not_vote", "arena_vote")


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("item_key", sa.String(length=64), nullable=True))
            batch_op.create_unique_constraint(
                batch_op.f(f"uq_{table}_item_key_voter_id"), ["item_key", "voter_id"]
            )


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_constraint(batch_op.f(f"uq_{table}_item_key_voter_id"), type_="unique")
            batch_op.drop_column("item_key")
