"""Annotators, their annotations of predictions, the edit history, review claims and skips."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    CheckConstraint,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from backend.verdicts import Verdict
from storage.models.base import Base, TimestampMixin, UTCDateTime, utcnow

RATING_DIMENSIONS = ("format", "factuality", "consistency", "realism", "quality")
VERDICT_CHECK = "verdict IN ({})".format(", ".join(f"'{v.value}'" for v in Verdict))


def _rating_checks() -> list[CheckConstraint]:
    return [
        CheckConstraint(f"rating_{dim} IS NULL OR rating_{dim} BETWEEN 1 AND 5", name=f"{dim}")
        for dim in RATING_DIMENSIONS
    ]


class AnnotatorRow(Base):
    """A person (or tool) that annotates; identified by a unique name."""

    __tablename__ = "annotator"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class AnnotationRow(TimestampMixin, Base):
    """One annotator's current judgement of one prediction.

    `version` starts at 1 and grows by one per edit; a write names the version it read and is
    refused when the row moved on (optimistic locking), so concurrent edits never overwrite.
    """

    __tablename__ = "annotation"
    __table_args__ = (
        UniqueConstraint("prediction_id", "annotator_id"),
        CheckConstraint(VERDICT_CHECK, name="verdict"),
        *_rating_checks(),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    prediction_id: Mapped[int] = mapped_column(ForeignKey("prediction.id", ondelete="CASCADE"))
    annotator_id: Mapped[int] = mapped_column(
        ForeignKey("annotator.id", ondelete="CASCADE"), index=True
    )
    corrected_observation: Mapped[str] = mapped_column(Text)
    rating_format: Mapped[int | None] = mapped_column(Integer)
    rating_factuality: Mapped[int | None] = mapped_column(Integer)
    rating_consistency: Mapped[int | None] = mapped_column(Integer)
    rating_realism: Mapped[int | None] = mapped_column(Integer)
    rating_quality: Mapped[int | None] = mapped_column(Integer)
    verdict: Mapped[str] = mapped_column(String(16))
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    notes: Mapped[str] = mapped_column(Text, default="")
    source: Mapped[str] = mapped_column(String(32), default="ui")
    author_role: Mapped[str | None] = mapped_column(String(16))
    version: Mapped[int] = mapped_column(Integer, default=1)


class AnnotationEditRow(Base):
    """A snapshot of an annotation as written at one version; rows are only ever inserted.

    The unique (annotation, version) pair is a second guard against lost updates: two writers
    that both passed the version check could not both record the same next version.
    """

    __tablename__ = "annotation_edit"
    __table_args__ = (
        UniqueConstraint("annotation_id", "version"),
        CheckConstraint(VERDICT_CHECK, name="verdict"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    annotation_id: Mapped[int] = mapped_column(ForeignKey("annotation.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    editor: Mapped[str] = mapped_column(String(255))
    corrected_observation: Mapped[str] = mapped_column(Text)
    ratings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    verdict: Mapped[str] = mapped_column(String(16))
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    notes: Mapped[str] = mapped_column(Text, default="")
    source: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ClaimRow(Base):
    """A prediction handed to one annotator until `expires_at`; at most one claim per prediction."""

    __tablename__ = "claim"

    prediction_id: Mapped[int] = mapped_column(
        ForeignKey("prediction.id", ondelete="CASCADE"), primary_key=True
    )
    annotator_id: Mapped[int] = mapped_column(
        ForeignKey("annotator.id", ondelete="CASCADE"), index=True
    )
    claimed_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class SkipRow(Base):
    """An annotator skipped a prediction at `skipped_at`: it goes to the back of their queue.

    Kept per annotator (not on the claim, which skipping deletes), so the order survives a page
    reload; skipping again moves it to the back again.
    """

    __tablename__ = "annotation_skip"

    prediction_id: Mapped[int] = mapped_column(
        ForeignKey("prediction.id", ondelete="CASCADE"), primary_key=True
    )
    annotator_id: Mapped[int] = mapped_column(
        ForeignKey("annotator.id", ondelete="CASCADE"), primary_key=True
    )
    skipped_at: Mapped[datetime] = mapped_column(UTCDateTime())
