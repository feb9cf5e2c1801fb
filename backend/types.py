"""Core value types shared by every layer: turns, trajectories, requests, predictions."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from backend.provenance import Predicted, Provenance


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


class PromptContext(BaseModel):
    """What a system prompt template is filled with, and what actions are checked against.

    Attributes:
        tools: tool definitions (OpenAI function or MCP tool schemas) for mcp, swe and search.
        demonstrations: example turns shown to the model.
        task: the agent's task, when the environment should know it.
        simulation_instruction: search only: a pinned target query and reference answer.
    """

    model_config = ConfigDict(frozen=True)

    tools: list[dict[str, Any]] | None = None
    demonstrations: str | None = None
    task: str | None = None
    simulation_instruction: str | None = None


class Turn(BaseModel):
    """One agent action, the real observation after it (None when unknown) and a prediction.

    `backend.history` decides which of the two observations a later prompt shows.
    """

    model_config = ConfigDict(frozen=True)

    action: str
    observation: str | None = None
    predicted: str | None = Field(
        default=None,
        description="The model's prediction for this turn (what closed-loop history shows, and "
        "what any history shows while the real observation is unknown).",
    )
    provenance: Provenance | None = Field(
        default=None,
        exclude=True,
        description="Where `observation` came from (`backend.provenance`); None when the "
        "turn's recording says it (`backend.sources.turn_provenance`). Left out of dumps: it "
        "says where a turn was read, not what it holds, so content digests do not move with it.",
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

    def prompt_context(self) -> PromptContext:
        """The recording's task and tool definitions, for its prompts and action checks."""
        tools = self.metadata.get("tools")
        listed = tools if isinstance(tools, list) else None
        return PromptContext(tools=listed, task=self.task or None)


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
    confidence: float | None = Field(
        default=None,
        description="Geometric mean of the sampled tokens' probabilities, where the engine "
        "returns log-probabilities; None otherwise.",
    )


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


AnsweredBy = Literal["model", "record", "executor", "live"]
"""Who answered a step: the world model, the record of real data (an exact match), an exact
executor (a deterministic, safe action run for real, e.g. an editor call), or the live environment.
"""

EXACT_ANSWERERS: tuple[AnsweredBy, ...] = ("record", "executor", "live")
"""The answerers that return reality itself; their answers carry the answerer as engine name."""


class Prediction(BaseModel):
    """A parsed prediction: the observation the model predicts plus everything about how.

    `action` and `messages` say exactly what was asked: the canonical action text and the chat
    messages the engine received, so that what is stored and exported is what the model saw.
    """

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
    action: str = ""
    messages: list[ChatMessage] = Field(default_factory=list)
    grounded_by: list[str] = Field(
        default_factory=list,
        description="The real transitions shown to the model as demonstrations (provenance ids: "
        "`<trajectory id>#<turn>` or `annotation:<id>`); empty when it was not grounded.",
    )
    answered_by: AnsweredBy = Field(
        default="model",
        description="Who answered: the world model, or (engine of the same name) the record, an "
        "exact executor or the live environment, whose observation is then reality itself.",
    )
    confidence: float | None = Field(
        default=None,
        description="The model's confidence in this prediction in [0, 1] (token log-probabilities "
        "or the agreement of samples); None when unknown; 1 for an exact answer.",
    )
    history_dropped: int = Field(
        default=0,
        ge=0,
        description="The oldest history turns left out of the prompt so that it and the output "
        "budget fit the engine's context (`backend.history.fit_context`); 0 when none were.",
    )
    provenance: Provenance | None = Field(
        default=None,
        description="Where `observation` came from: the engine and model for a model's answer "
        "(filled in when not given), the reality that answered for an exact one (the matched "
        "transition's own source, the live run). `answered_by` says who answered; this says "
        "where the observation came from, and every label is derived from it.",
    )

    @model_validator(mode="after")
    def _model_provenance(self) -> Prediction:
        # A model's answer always knows its source; an exact answer must be given its reality.
        if self.provenance is None and self.answered_by == "model":
            self.provenance = Predicted(engine=self.engine, model=self.model)
        return self


ReferenceOrigin = Literal["recorded", "live", "annotator"]


class VerbatimChat(BaseModel):
    """An official row's own turn texts, sent as the release's `eval.py infer` sends them.

    Rebuilding a row's chat from its parsed turns would re-format each action and drop
    whatever our layout does not hold, so a benchmark over the official rows would not ask
    what the official harness asks. With this the chat is, verbatim: the row's `system_str`
    (left out when empty), its earlier `prompt`/`response` pairs, and `prompt[turn_idx-1]`.

    Attributes:
        turns: the (user, assistant) texts of the earlier turns, in order.
        current: the user text of the turn under test.
    """

    model_config = ConfigDict(frozen=True)

    turns: list[tuple[str, str]] = Field(default_factory=list)
    current: str


class SimRequest(BaseModel):
    """One simulation step, self-contained: everything that decides the prompt, and the truth.

    Attributes:
        domain: the domain name.
        system_prompt: a custom system prompt; None means the domain's, filled from `context`.
        context: the task and tool definitions the prompt is filled with and actions checked by.
        initial_state: the observation before the first action, when known.
        history: the earlier turns; `backend.history` decides what each shows the model.
        action: the agent's action.
        history_mode: teacher_forced, closed_loop or blind.
        params: sampling parameters.
        reference: the real observation after the action, when known before the step (scores,
            and the oracle baseline, which returns it).
        reference_origin: where `reference` comes from: a recording, a live run, an annotator.
        reference_provenance: the source of `reference` in full (`backend.provenance`); None
            leaves it to `backend.sources.reference_provenance`, from the origin.
        grounding_exclude: recordings whose real transitions this step must never be shown:
            its own (a benchmark item's, an episode's, a session's base recording), so grounding
            never leaks the answer or the step's own future.
        own_path: the content fingerprints of the recording this step is measured against, from
            its start (`backend.grounding.fingerprint`): grounding and the record never show it
            a transition on this path or after its last step, whatever its id
            (`backend.grounding.leakage`). Empty: it follows no recording (a live session, a
            free step), and only `grounding_exclude`'s ids guard it.
        verbatim: an official row's turn texts: a teacher-forced step sends them as they are
            (and its action unchecked), as the official harness does.
        task_check: the action is the task's success check (`backend.envs.sim.check_action`),
            not an agent's: it is sent as written, outside the domain's action format.
    """

    domain: str
    system_prompt: str | None = None
    context: PromptContext = Field(default_factory=PromptContext)
    initial_state: str | None = None
    history: list[Turn] = Field(default_factory=list)
    action: str
    history_mode: HistoryMode = HistoryMode.TEACHER_FORCED
    params: SamplingParams = Field(default_factory=SamplingParams)
    reference: str | None = None
    reference_origin: ReferenceOrigin = "recorded"
    reference_provenance: Provenance | None = None
    grounding_exclude: tuple[str, ...] = ()
    own_path: tuple[str, ...] = ()
    verbatim: VerbatimChat | None = None
    task_check: bool = False
