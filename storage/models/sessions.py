"""Simulation sessions, their steps, every prediction made for a step and its scores."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    true,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from storage.models.base import Base, TimestampMixin, UTCDateTime, utcnow


class ObservationOrigin(StrEnum):
    """Where a step's real observation came from.

    recorded: a stored trajectory; live: a real environment run; annotator: a person wrote it.
    """

    RECORDED = "recorded"
    LIVE = "live"
    ANNOTATOR = "annotator"


_HISTORY_MODES = "('teacher_forced', 'closed_loop', 'blind')"
_ORIGINS = "('recorded', 'live', 'annotator')"


class SessionKind(StrEnum):
    """What made a session.

    The Playground or Replay page, `awp simulate`, `awp bench`, the Arena page (a battle: one
    step, two predictions), the Playground's many futures (a branch of its session), an
    agent's episode in the world model or a live environment (`awp rollout`, the Gymnasium and
    OpenEnv environments), the calls an MCP client made to `awp mcp serve`, or an Inspect
    task's commands in the `awp` sandbox.
    """

    PLAYGROUND = "playground"
    REPLAY = "replay"
    CLI = "cli"
    BENCH = "bench"
    ARENA = "arena"
    FUTURES = "futures"
    ROLLOUT = "rollout"
    MCP = "mcp"
    INSPECT = "inspect"


class SessionRow(TimestampMixin, Base):
    """A simulation session: one domain, one engine and model, one history mode.

    A branch shares its parent's steps before `branched_at` instead of copying them, so every
    prediction exists once (the annotation queue never shows a copy) and a branch dies with its
    parent. `base_trajectory_id` is the recording the session started from; `prompt_context`
    the task and tool definitions its prompts were filled with (`backend.types.PromptContext`);
    `bench_run_id` the benchmark run whose predictions it holds. `complete` is False for an
    episode (kind `rollout`) that has not ended: still running, or cut off when its process was
    killed; exports and the review queues leave such sessions out.
    """

    __tablename__ = "session"
    __table_args__ = (CheckConstraint(f"history_mode IN {_HISTORY_MODES}", name="history_mode"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    domain: Mapped[str] = mapped_column(String(64), index=True)
    engine: Mapped[str] = mapped_column(String(64))
    model: Mapped[str] = mapped_column(String(255))
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    history_mode: Mapped[str] = mapped_column(String(16))
    system_prompt: Mapped[str | None] = mapped_column(Text)
    initial_state: Mapped[str | None] = mapped_column(Text)
    task: Mapped[str] = mapped_column(Text, default="")
    prompt_context: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    kind: Mapped[str] = mapped_column(
        String(16),
        default=SessionKind.PLAYGROUND.value,
        server_default=SessionKind.PLAYGROUND.value,
    )
    bench_run_id: Mapped[int | None] = mapped_column(
        ForeignKey("run.id", ondelete="SET NULL"), index=True
    )
    owner: Mapped[str | None] = mapped_column(String(255), index=True)
    base_trajectory_id: Mapped[str | None] = mapped_column(
        ForeignKey("trajectory.id", ondelete="SET NULL"), index=True
    )
    parent_session_id: Mapped[int | None] = mapped_column(
        ForeignKey("session.id", ondelete="CASCADE"), index=True
    )
    branched_at: Mapped[int | None] = mapped_column(Integer)
    complete: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    world: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))

    steps: Mapped[list[StepRow]] = relationship(
        back_populates="session",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by="StepRow.index",
    )


class StepRow(Base):
    """One action in a session (0-based `index`) and, when known, the real observation after it.

    `answered_by` says whose observation the session goes on from (`backend.types.AnsweredBy`:
    model, record, executor, live); None for recorded turns copied in as history and for steps
    stored before it existed. `provenance` says where `real_observation` came from
    (`backend.provenance`); a real observation without it is refused.
    """

    __tablename__ = "step"
    __table_args__ = (
        UniqueConstraint("session_id", "index"),
        CheckConstraint(f"origin IS NULL OR origin IN {_ORIGINS}", name="origin"),
        CheckConstraint("real_observation IS NULL OR provenance IS NOT NULL", name="provenance"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("session.id", ondelete="CASCADE"))
    index: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)
    real_observation: Mapped[str | None] = mapped_column(Text)
    origin: Mapped[str | None] = mapped_column(String(16))
    answered_by: Mapped[str | None] = mapped_column(String(16), index=True)
    provenance: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    session: Mapped[SessionRow] = relationship(back_populates="steps")
    predictions: Mapped[list[PredictionRow]] = relationship(
        back_populates="step",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by="PredictionRow.id",
    )


class PredictionRow(Base):
    """Everything an engine returned for a step (`backend.types.Prediction`) and how it was asked.

    A step may hold several predictions (engines compared side by side, retries). `prompt` is
    the exact chat the engine received, as `[role, sha256]` pairs whose texts are stored once in
    `prompt_text`: consecutive steps share their history messages, so the chat of every step is
    kept at the cost of the new messages only. It is None for predictions stored before it existed.
    `grounded_by` names the real transitions shown to the model as demonstrations
    (`backend.grounding`); None for predictions stored before grounding existed.
    `confidence` is the model's own confidence in [0, 1] (`backend.confidence`), None unknown.
    `history_dropped` is how many of the oldest history turns were left out of `prompt` so it
    fit the engine's context (`backend.history.fit_context`); None for predictions stored
    before it was kept. `provenance` is where `observation` came from (the engine and model, or
    the reality an exact answer gave); never NULL.
    """

    __tablename__ = "prediction"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    step_id: Mapped[int] = mapped_column(ForeignKey("step.id", ondelete="CASCADE"), index=True)
    observation: Mapped[str] = mapped_column(Text)
    reasoning: Mapped[str] = mapped_column(Text, default="")
    raw_text: Mapped[str] = mapped_column(Text)
    finish_reason: Mapped[str] = mapped_column(String(32))
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    latency_s: Mapped[float] = mapped_column(Float, default=0.0)
    engine: Mapped[str] = mapped_column(String(64), index=True)
    model: Mapped[str] = mapped_column(String(255))
    diagnostics: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    history_mode: Mapped[str] = mapped_column(String(16))
    prompt: Mapped[list[list[str]] | None] = mapped_column(JSON)
    grounded_by: Mapped[list[str] | None] = mapped_column(JSON)
    confidence: Mapped[float | None] = mapped_column(Float)
    history_dropped: Mapped[int | None] = mapped_column(Integer)
    provenance: Mapped[dict[str, Any]] = mapped_column(JSON(none_as_null=True))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, index=True)

    step: Mapped[StepRow] = relationship(back_populates="predictions")
    scores: Mapped[list[ScoreRow]] = relationship(
        back_populates="prediction",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by="ScoreRow.id",
    )


class ScoreRow(Base):
    """One metric (or judge dimension) value for a prediction, with the metric's version."""

    __tablename__ = "score"
    __table_args__ = (UniqueConstraint("prediction_id", "name", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    prediction_id: Mapped[int] = mapped_column(ForeignKey("prediction.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(128))
    version: Mapped[str] = mapped_column(String(64))
    value: Mapped[float] = mapped_column(Float)
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    prediction: Mapped[PredictionRow] = relationship(back_populates="scores")


class PromptTextRow(Base):
    """One chat message text, stored once and named by its SHA-256 (see `PredictionRow.prompt`)."""

    __tablename__ = "prompt_text"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    text: Mapped[str] = mapped_column(Text)
