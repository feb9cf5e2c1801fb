"""Core value types shared by every layer: turns, trajectories, requests, predictions."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ObservationKind(StrEnum):
    """How an observation is represented; picks parsers, metrics and renderers."""

    SCREEN = "screen"
    TEXT = "text"
    JSON = "json"
    SEARCH = "search"
    AXTREE = "axtree"
    HTML = "html"
    A11Y_TREE = "a11y_tree"
    ANDROID_XML = "android_xml"
    ANDROID_JSON = "android_json"


class HistoryMode(StrEnum):
    """Which observations the model sees as history.

    teacher_forced: the real recorded observations (the official evaluation);
    closed_loop: the model's own earlier predictions; blind: no history at all.
    """

    TEACHER_FORCED = "teacher_forced"
    CLOSED_LOOP = "closed_loop"
    BLIND = "blind"


class Turn(BaseModel):
    """One agent action and the environment's observation after it (None when unknown)."""

    model_config = ConfigDict(frozen=True)

    action: str
    observation: str | None = None
    predicted: str | None = Field(
        default=None, description="A model's prediction for this turn, used as closed-loop history."
    )


class Trajectory(BaseModel):
    """A recorded (or imported) sequence of turns in one domain, with provenance.

    `initial_state` is the observation before the first action where one exists (a terminal
    screen, a web page); several domains start from nothing.
    """

    id: str
    domain: str
    system_prompt: str | None = None
    task: str = ""
    initial_state: str | None = None
    turns: list[Turn]
    source: str
    licence: str
    commit: str | None = None
    notes: str = ""
    action_inferred: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)


class SamplingParams(BaseModel):
    """Sampling settings passed to every engine (defaults are the model card's)."""

    model_config = ConfigDict(frozen=True)

    temperature: float = Field(default=0.6, ge=0.0, le=2.0)
    top_p: float = Field(default=0.95, gt=0.0, le=1.0)
    top_k: int = Field(default=20, ge=0)
    max_new_tokens: int = Field(default=256, ge=1, le=262_144)
    seed: int | None = None


class ChatMessage(BaseModel):
    """One chat message in the OpenAI layout."""

    model_config = ConfigDict(frozen=True)

    role: Literal["system", "user", "assistant"]
    content: str


class ChatRequest(BaseModel):
    """A chat completion request as every engine receives it.

    `reference` carries the recorded truth only for the `oracle` baseline; real engines ignore it.
    """

    model_config = ConfigDict(frozen=True)

    messages: list[ChatMessage]
    params: SamplingParams = Field(default_factory=SamplingParams)
    reference: str | None = None


FinishReason = Literal["stop", "length", "error", "baseline"]


class Completion(BaseModel):
    """What an engine returns for one request, before the official output rules are applied."""

    text: str
    reasoning: str = ""
    finish_reason: str = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    engine: str
    model: str


class StreamChunk(BaseModel):
    """One streamed piece of a completion; the last chunk of a stream carries `completion`."""

    reasoning_delta: str = ""
    content_delta: str = ""
    completion: Completion | None = None


class Diagnostics(BaseModel):
    """Output checks the official judges expect, computed on the raw model text."""

    open_tags: int
    close_tags: int
    speculative_words: int
    chars_outside_block: int
    extracted_length: int
    empty_extraction: bool


class Prediction(BaseModel):
    """A parsed prediction: the observation the model predicts plus everything about how."""

    observation: str
    reasoning: str = ""
    raw_text: str
    finish_reason: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    engine: str
    model: str
    diagnostics: Diagnostics


class SimRequest(BaseModel):
    """One simulation step: a domain, its prompt, the history and the next action."""

    domain: str
    system_prompt: str | None = None
    initial_state: str | None = None
    history: list[Turn] = Field(default_factory=list)
    action: str
    history_mode: HistoryMode = HistoryMode.TEACHER_FORCED
    params: SamplingParams = Field(default_factory=SamplingParams)
    reference: str | None = None
