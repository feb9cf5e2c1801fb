"""Votes of people (and of the LLM judge) on "Which one is real?" items and on arena battles.

Each vote names its voter through the annotator table (the same per-person names as
annotations, anonymous ones issued by the server) and keeps the domain, engine, model and
contenders it counts for, so a report is one GROUP BY over one table, however many votes there are.

`item_key` names what a vote is about independently of the rows that showed it: the recorded
step (its recording and turn) with the model, or the pair of contenders. A fresh battle on a
step someone already judged is the same item, so the unique (item, voter) pair keeps one vote
per person, whatever sessions and predictions were made to show it again.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from storage.models.base import Base, UTCDateTime, utcnow

VOTE_SOURCES = ("human", "judge")
REAL_CHOICES = ("A", "B", "cannot_tell")
ARENA_OUTCOMES = ("a", "b", "tie", "both_bad")


def _within(column: str, values: tuple[str, ...]) -> str:
    return "{} IN ({})".format(column, ", ".join(f"'{v}'" for v in values))


class RealOrNotVoteRow(Base):
    """One vote on "Which one is real?": the real observation and a prediction, in random order.

    `real_side` says where the real observation was shown (A or B), `choice` what the voter
    picked (A, B or cannot_tell); `confidence` is 1 (guessing), 2 (fairly sure) or 3 (certain),
    None for the judge.
    """

    __tablename__ = "real_or_not_vote"
    __table_args__ = (
        UniqueConstraint("prediction_id", "voter_id"),
        UniqueConstraint("item_key", "voter_id"),
        CheckConstraint(_within("source", VOTE_SOURCES), name="source"),
        CheckConstraint(_within("real_side", ("A", "B")), name="real_side"),
        CheckConstraint(_within("choice", REAL_CHOICES), name="choice"),
        CheckConstraint("confidence IS NULL OR confidence BETWEEN 1 AND 3", name="confidence"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    prediction_id: Mapped[int] = mapped_column(ForeignKey("prediction.id", ondelete="CASCADE"))
    voter_id: Mapped[int] = mapped_column(
        ForeignKey("annotator.id", ondelete="CASCADE"), index=True
    )
    source: Mapped[str] = mapped_column(String(16))
    domain: Mapped[str] = mapped_column(String(64))
    engine: Mapped[str] = mapped_column(String(64))
    model: Mapped[str] = mapped_column(String(255))
    real_side: Mapped[str] = mapped_column(String(1))
    choice: Mapped[str] = mapped_column(String(16))
    confidence: Mapped[int | None] = mapped_column(Integer)
    item_key: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ArenaVoteRow(Base):
    """One vote on an arena battle: two predictions of one step, shown as A and B without names.

    `contender_a` and `contender_b` name what made each prediction
    (`backend.compare.contenders.contender_label`); `outcome` is a, b, tie or both_bad.
    """

    __tablename__ = "arena_vote"
    __table_args__ = (
        UniqueConstraint("prediction_a", "prediction_b", "voter_id"),
        UniqueConstraint("item_key", "voter_id"),
        CheckConstraint(_within("source", VOTE_SOURCES), name="source"),
        CheckConstraint(_within("outcome", ARENA_OUTCOMES), name="outcome"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    step_id: Mapped[int] = mapped_column(ForeignKey("step.id", ondelete="CASCADE"), index=True)
    prediction_a: Mapped[int] = mapped_column(ForeignKey("prediction.id", ondelete="CASCADE"))
    prediction_b: Mapped[int] = mapped_column(
        ForeignKey("prediction.id", ondelete="CASCADE"), index=True
    )
    voter_id: Mapped[int] = mapped_column(
        ForeignKey("annotator.id", ondelete="CASCADE"), index=True
    )
    source: Mapped[str] = mapped_column(String(16))
    domain: Mapped[str] = mapped_column(String(64))
    contender_a: Mapped[str] = mapped_column(String(255))
    contender_b: Mapped[str] = mapped_column(String(255))
    outcome: Mapped[str] = mapped_column(String(16))
    item_key: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
