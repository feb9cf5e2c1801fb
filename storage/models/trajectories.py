"""Recorded and imported trajectories and their turns."""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from storage.models.base import Base, TimestampMixin


class TrajectoryRow(TimestampMixin, Base):
    """One trajectory (`backend.types.Trajectory`); its id comes from the importer."""

    __tablename__ = "trajectory"

    id: Mapped[str] = mapped_column(String(255), primary_key=True)
    domain: Mapped[str] = mapped_column(String(64), index=True)
    system_prompt: Mapped[str | None] = mapped_column(Text)
    task: Mapped[str] = mapped_column(Text, default="")
    initial_state: Mapped[str | None] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(255), index=True)
    licence: Mapped[str] = mapped_column(String(255))
    commit: Mapped[str | None] = mapped_column(String(255))
    notes: Mapped[str] = mapped_column(Text, default="")
    action_inferred: Mapped[bool] = mapped_column(Boolean, default=False)
    extra: Mapped[dict[str, Any]] = mapped_column("metadata", JSON, default=dict)

    turns: Mapped[list[TurnRow]] = relationship(
        back_populates="trajectory",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by="TurnRow.index",
    )


class TurnRow(Base):
    """One (action, observation) turn of a trajectory, 0-based `index`.

    `provenance` says where `observation` came from (`backend.provenance`: an import's dataset,
    file and row, or a live run); an observation without it is refused.
    """

    __tablename__ = "turn"
    __table_args__ = (
        UniqueConstraint("trajectory_id", "index"),
        CheckConstraint("observation IS NULL OR provenance IS NOT NULL", name="provenance"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    trajectory_id: Mapped[str] = mapped_column(ForeignKey("trajectory.id", ondelete="CASCADE"))
    index: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)
    observation: Mapped[str | None] = mapped_column(Text)
    predicted: Mapped[str | None] = mapped_column(Text)
    provenance: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))

    trajectory: Mapped[TrajectoryRow] = relationship(back_populates="turns")
