"""`train_results.json`: what a run trained on, how, what it cost, and the before/after table."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel, Field

from backend.training.config import TrainConfig
from backend.training.evaluate import EvalTable

RESULTS_FILE = "train_results.json"
MODEL_DIR = "model"
ADAPTER_DIR = "adapter"
CHECKPOINT_DIR = "checkpoints"


class DataSizes(BaseModel):
    """How many examples went where, and what fitting the token budget did to them."""

    examples: int
    train_examples: int
    train_groups: int
    heldout_groups: int
    heldout_items: int
    cut: int = Field(description="Examples that lost their oldest history turns to fit.")
    dropped: int = Field(description="Examples too long even with no history (not trained on).")
    heldout_cut: int = Field(
        default=0, description="Held-out turns benchmarked with a cut history."
    )
    heldout_dropped: int = Field(
        default=0, description="Held-out turns too long even with no history (not benchmarked)."
    )


class TrainResults(BaseModel):
    """The results file of one run (versioned wire format)."""

    schema_version: int = 1
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())
    config: TrainConfig
    base_model: str
    data: str
    data_hash: str
    sizes: DataSizes
    steps: int
    train_seconds: float
    tokens_per_s: float | None
    peak_memory_mb: float
    stopped_by_time: bool
    losses: list[tuple[int, float]]
    model_dir: str
    adapter_dir: str | None
    eval: EvalTable | None = None
