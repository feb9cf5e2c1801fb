"""What a running training job tells its listener (light: no torch, no transformers)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ProgressEvent:
    """One logged training step."""

    step: int
    max_steps: int
    loss: float | None
    tokens_per_s: float | None
    elapsed_s: float


ProgressListener = Callable[[ProgressEvent], None]
