"""Export row models, one per format; `schema_version` changes whenever a row's shape does.

Columns follow TRL's dataset conventions (prompt/completion, prompt/chosen/rejected,
prompt/completion/label, prompt + extra columns for a reward function) and every row keeps the
links back to where it came from.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Message(BaseModel):
    """One chat message; TRL reads `role` and `content`."""

    model_config = ConfigDict(frozen=True)

    role: str
    content: str


class ProvenanceColumn(BaseModel):
    """An observation's source as an export column (`backend.provenance`, one flat struct).

    `kind` says which of the four it is; the fields of the other kinds are null, so every row
    of a Parquet file has one schema.
    """

    kind: str = Field(description="recorded, live, correction or predicted.")
    dataset: str | None = Field(default=None, description="recorded: the import's source.")
    file: str | None = Field(default=None, description="recorded: the file it was read from.")
    row_id: str | None = Field(default=None, description="recorded: the recording's id.")
    turn: int | None = Field(default=None, description="recorded: the 1-based turn.")
    fingerprint: str | None = Field(default=None, description="recorded: content fingerprint.")
    sandbox: str | None = Field(default=None, description="live: what ran it.")
    run: str | None = Field(default=None, description="live: the run it belongs to.")
    at: str | None = Field(default=None, description="live: when it was observed (UTC).")
    annotation_id: int | None = Field(default=None, description="correction: the annotation.")
    author: str | None = Field(default=None, description="correction: who wrote it.")
    role: str | None = Field(default=None, description="correction: the author's role.")
    review: str | None = Field(default=None, description="correction: its review state.")
    trusted_by: str | None = Field(default=None, description="correction: why it is trusted.")
    engine: str | None = Field(default=None, description="predicted: the engine.")
    model: str | None = Field(default=None, description="predicted: the model.")
    spec: str | None = Field(default=None, description="predicted: the world spec's digest.")


class LinkedRow(BaseModel):
    """Columns every export row carries: the domain and the ids of its sources."""

    domain: str = Field(description="Domain of the prediction (terminal, web, ...).")
    session_id: int = Field(description="Stored session the step belongs to.")
    step_id: int = Field(description="Stored step.")
    prediction_id: int = Field(description="Stored prediction the row was made from.")
    annotation_id: int | None = Field(description="Annotation used, when one was.")
    engine: str = Field(description="Engine that made the prediction.")
    model: str = Field(description="Model that made the prediction.")
    annotator: str | None = Field(description="Who annotated it, when someone did.")
    author_role: str | None = Field(
        default=None,
        description="The annotator's role when they wrote it (annotator, reviewer, admin); None "
        "when nobody annotated it or it was written before roles were stored.",
    )
    review: str | None = Field(
        default=None,
        description="The annotation's state under the trust rule (`backend.trust`): trusted, "
        "unreviewed or rejected; only trusted corrections answer as reality. None when nobody "
        "annotated it.",
    )
    grounded_by: list[str] = Field(
        description="Real transitions shown to the model as demonstrations (`<trajectory>#<turn>` "
        "or `annotation:<id>`); empty when the prediction was not grounded."
    )
    answered_by: str | None = Field(
        default=None,
        description="Who answered the step: model, record, executor or live (the engine of an "
        "exact answer is the answerer's name); None for steps stored before it was kept.",
    )
    confidence: float | None = Field(
        default=None, description="The model's confidence in the prediction in [0, 1], if known."
    )
    history_dropped: int | None = Field(
        default=None,
        description="The oldest history turns left out of the prompt so it fit the engine's "
        "context (0: none); None for predictions stored before it was kept.",
    )
    provenance: ProvenanceColumn | None = Field(
        default=None,
        description="Where the prediction's observation came from (`backend.provenance`: "
        "`predicted` engine and model, or the `recorded`/`live`/`correction` reality of an "
        "exact answer).",
    )
    real_provenance: ProvenanceColumn | None = Field(
        default=None,
        description="Where the step's real observation came from (`recorded` import, `live` "
        "run, `correction`); None when it is unknown.",
    )


class SFTRow(LinkedRow):
    """Supervised fine-tuning: the corrected observation as the target completion."""

    schema_version: Literal[3] = 3
    prompt: list[Message] = Field(description="System prompt, history and current action.")
    completion: list[Message] = Field(
        description="The corrected observation, as the model answers."
    )


class DPORow(LinkedRow):
    """Preference pair: the correction preferred over the model's own prediction."""

    schema_version: Literal[3] = 3
    prompt: list[Message] = Field(description="System prompt, history and current action.")
    chosen: list[Message] = Field(description="The corrected observation.")
    rejected: list[Message] = Field(description="The model's prediction.")


class KTORow(LinkedRow):
    """Unpaired preference: a completion labelled desirable or not."""

    schema_version: Literal[3] = 3
    prompt: list[Message] = Field(description="System prompt, history and current action.")
    completion: list[Message] = Field(description="The prediction, or the correction.")
    label: bool = Field(description="True when the completion is correct.")
    completion_source: Literal["prediction", "correction"] = Field(
        description="Whether the completion is the model's prediction or the annotator's fix."
    )


class ScoreColumn(BaseModel):
    """A deterministic metric's value for the prediction."""

    name: str
    version: str
    value: float


class RatingColumn(BaseModel):
    """A 1-5 rubric score for one dimension (judge or human)."""

    dimension: str
    value: int


class RewardPart(BaseModel):
    """One normalised component of the combined reward with its weight."""

    name: str
    value: float
    weight: float


class CPTRow(LinkedRow):
    """Continual pre-training: one transition as plain text (the model learns the whole of it)."""

    schema_version: Literal[3] = 3
    text: str = Field(
        description="System prompt, history, action and the true observation, as plain text."
    )


class RewardRow(LinkedRow):
    """Reference data for online RL (GRPO) and reward models."""

    schema_version: Literal[3] = 3
    prompt: list[Message] = Field(description="System prompt, history and current action.")
    reference: str = Field(description="The true observation: correction, else the real one.")
    previous: str | None = Field(description="The observation before the action, if known.")
    prediction: str = Field(description="The model's predicted observation.")
    metrics: list[ScoreColumn] = Field(description="Deterministic metrics of the prediction.")
    judge: list[RatingColumn] = Field(description="Judge rubric scores, when a judge ran.")
    human: list[RatingColumn] = Field(description="Annotator rubric ratings, when rated.")
    reward: float = Field(description="The combined reward in [0, 1].")
    reward_formula: str = Field(description="Version of the formula that combined it.")
    reward_components: list[RewardPart] = Field(description="What the reward combined.")


class AgentWorldBenchExportRow(LinkedRow):
    """A new benchmark item in the official AgentWorldBench layout, correction as ground truth."""

    schema_version: Literal[3] = 3
    task: str = Field(description="The domain, as the official `task` column.")
    id: str = Field(description="Trajectory id shared by the rows of one session.")
    prompt: list[str] = Field(description="User turns 1..turn_idx.")
    response: list[str] = Field(description="Observations 1..turn_idx; the last is the truth.")
    current_prompt: str = Field(description="The user turn being predicted.")
    system_str: str = Field(description="The world-model system prompt.")
    turn_idx: int = Field(description="1-based turn being predicted.")
    total_turns: int = Field(description="Turns in the exported trajectory.")
