"""Annotation verdicts (accept / reject / cannot tell) instead of a nullable accept flag; skips.

An annotation used to carry `accept` (true, false or nothing) next to a correction that was
often the untouched prediction, so an empty submit looked like a correction. The verdict says
what the annotation establishes. Existing rows map by what they hold:

- a correction that differs from the prediction (ignoring surrounding whitespace): reject,
  whatever `accept` said (the correction is what the annotator wrote as the truth);
- the prediction unchanged and accept true: accept;
- the prediction unchanged and accept false or empty: cannot tell (a reject without a
  correction, or a submit without any judgement, establishes no truth).

History entries map the same way, each by its own correction. Downgrading maps accept to
true, reject to false and cannot tell to empty.

`annotation_skip` records when an annotator skipped a prediction, so skipped items go to the
back of that annotator's queue and stay there across page reloads.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

VERDICT_CHECK = "verdict IN ('accept', 'reject', 'cannot_tell')"
BATCH = 500

prediction = sa.table("prediction", sa.column("id"), sa.column("observation"))
annotation = sa.table(
    "annotation",
    sa.column("id"),
    sa.column("prediction_id"),
    sa.column("corrected_observation"),
    sa.column("accept"),
    sa.column("verdict"),
)
annotation_edit = sa.table(
    "annotation_edit",
    sa.column("id"),
    sa.column("annotation_id"),
    sa.column("corrected_observation"),
    sa.column("accept"),
    sa.column("verdict"),
)


def _verdict(accept: bool | None, corrected: str, predicted: str) -> str:
    if corrected.strip() != predicted.strip():
        return "reject"
    return "accept" if accept else "cannot_tell"


def _old_fields(table: sa.TableClause) -> sa.Select[tuple[int, bool | None, str, str]]:
    """Each row's id, accept flag, correction and the prediction it judged."""
    query = sa.select(
        table.c.id, table.c.accept, table.c.corrected_observation, prediction.c.observation
    )
    if table is annotation:
        return query.join(prediction, prediction.c.id == annotation.c.prediction_id)
    owner = annotation.alias("owner")
    return query.join(owner, owner.c.id == table.c.annotation_id).join(
        prediction, prediction.c.id == owner.c.prediction_id
    )


def _fill_verdicts(table: sa.TableClause) -> None:
    """Set `verdict` of every row of `table` (annotations or their history), a batch at a time."""
    connection = op.get_bind()
    after = 0
    while True:
        query = _old_fields(table).where(table.c.id > after).order_by(table.c.id).limit(BATCH)
        rows = connection.execute(query).all()
        if not rows:
            return
        by_verdict: dict[str, list[int]] = {}
        for row_id, accept, corrected, predicted in rows:
            by_verdict.setdefault(_verdict(accept, corrected, predicted), []).append(row_id)
        for verdict, ids in by_verdict.items():
            connection.execute(sa.update(table).where(table.c.id.in_(ids)).values(verdict=verdict))
        after = rows[-1][0]


def _fill_accept(table: sa.TableClause) -> None:
    connection = op.get_bind()
    for verdict, accept in (("accept", True), ("reject", False)):
        connection.execute(sa.update(table).where(table.c.verdict == verdict).values(accept=accept))


def upgrade() -> None:
    op.create_table(
        "annotation_skip",
        sa.Column("prediction_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("skipped_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["annotator_id"],
            ["annotator.id"],
            name=op.f("fk_annotation_skip_annotator_id_annotator"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["prediction_id"],
            ["prediction.id"],
            name=op.f("fk_annotation_skip_prediction_id_prediction"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("prediction_id", "annotator_id", name=op.f("pk_annotation_skip")),
    )
    for name in ("annotation", "annotation_edit"):
        with op.batch_alter_table(name, schema=None) as batch_op:
            batch_op.add_column(sa.Column("verdict", sa.String(length=16), nullable=True))

    _fill_verdicts(annotation)
    _fill_verdicts(annotation_edit)

    for name in ("annotation", "annotation_edit"):
        with op.batch_alter_table(name, schema=None) as batch_op:
            batch_op.alter_column("verdict", existing_type=sa.String(length=16), nullable=False)
            batch_op.create_check_constraint(op.f(f"ck_{name}_verdict"), VERDICT_CHECK)
            batch_op.drop_column("accept")


def downgrade() -> None:
    for name, table in (("annotation", annotation), ("annotation_edit", annotation_edit)):
        with op.batch_alter_table(name, schema=None) as batch_op:
            batch_op.add_column(sa.Column("accept", sa.Boolean(), nullable=True))
        _fill_accept(table)
        with op.batch_alter_table(name, schema=None) as batch_op:
            batch_op.drop_constraint(op.f(f"ck_{name}_verdict"), type_="check")
            batch_op.drop_column("verdict")
    op.drop_table("annotation_skip")
