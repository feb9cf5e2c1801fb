"""The training progress: a bar with loss, tokens/s and ETA, a time limit, Cancel, a listener.

The listener (the runs table, the Train page) hears every logged step; the time limit stops the
run after the step that crosses it, saving a checkpoint, so `--max-minutes` is honoured to within
one step and the run can be resumed. Run as a page's job (`backend.jobs`), every step counts
towards the job's progress, and Cancel stops the run the same way after the current step.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm
from transformers import TrainerCallback

from backend import jobs
from backend.training.events import ProgressEvent, ProgressListener

UNIT = "training steps"


@dataclass
class ProgressLog:
    """What the callback saw: losses by step, the token count and the time spent."""

    losses: list[tuple[int, float]] = field(default_factory=list)
    tokens: float = 0.0
    elapsed_s: float = 0.0
    stopped_by_time: bool = False
    cancelled: bool = False

    @property
    def tokens_per_s(self) -> float | None:
        """Training tokens per second (None when the trainer does not count tokens)."""
        return self.tokens / self.elapsed_s if self.tokens and self.elapsed_s else None


class Progress(TrainerCallback):
    """Shows progress, stops at the time limit or Cancel and tells the listener.

    Args:
        max_minutes: stop after this much training time (None: no limit).
        listener: hears every logged step.
        show: draw the bar (off in the UI and tests).
        stage: what the job's line calls the training stage.
    """

    def __init__(
        self,
        max_minutes: float | None,
        listener: ProgressListener | None,
        show: bool,
        stage: str,
    ) -> None:
        self.max_minutes = max_minutes
        self.stage = stage
        self.listener = listener
        self.show = show
        self.log = ProgressLog()
        self._start = time.monotonic()
        self._bar: tqdm[Any] | None = None
        self._base_tokens: float | None = None

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Start the clock, the bar and the job's stage (at the checkpoint's step when resumed)."""
        self._start = time.monotonic()
        jobs.begin_stage(self.stage, state.max_steps, UNIT)
        jobs.advance(state.global_step)
        if state.global_step == 0:
            self._base_tokens = 0.0  # fresh: count from zero; resumed: from its first log
        self._bar = tqdm(
            total=state.max_steps, initial=state.global_step, desc="train", disable=not self.show
        )

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Advance the bar and the job; past the time limit or on Cancel, save and stop."""
        self.log.elapsed_s = time.monotonic() - self._start
        if self._bar is not None:
            self._bar.update(state.global_step - self._bar.n)
        jobs.advance(state.global_step)
        if jobs.cancel_requested():
            self.log.cancelled = True
        elif self.max_minutes is not None and self.log.elapsed_s >= self.max_minutes * 60:
            self.log.stopped_by_time = True
        else:
            return
        # The checkpoint saved here lets `--resume` continue from this very step.
        control.should_training_stop = True
        control.should_save = True

    def on_log(
        self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kw: Any
    ) -> None:
        """Record the loss and token count, show them, and tell the listener."""
        logs = logs or {}
        self.log.elapsed_s = time.monotonic() - self._start
        if "num_tokens" in logs:
            # A resumed run's counter starts where the checkpoint left it; count this run's tokens.
            if self._base_tokens is None:
                self._base_tokens = float(logs["num_tokens"])
            self.log.tokens = float(logs["num_tokens"]) - self._base_tokens
        loss = logs.get("loss")
        if loss is not None:
            self.log.losses.append((state.global_step, float(loss)))
        rate = self.log.tokens_per_s
        if self._bar is not None and loss is not None:
            self._bar.set_postfix(loss=f"{loss:.3f}", tok_s=f"{rate:.0f}" if rate else "-")
        if self.listener is not None and loss is not None:
            self.listener(
                ProgressEvent(
                    step=state.global_step,
                    max_steps=state.max_steps,
                    loss=float(loss),
                    tokens_per_s=rate,
                    elapsed_s=self.log.elapsed_s,
                )
            )

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Close the bar."""
        if self._bar is not None:
            self._bar.close()
