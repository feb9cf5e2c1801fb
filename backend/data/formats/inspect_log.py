"""Inspect AI eval logs (`.eval` or `.json`): each sample's tool calls and results as turns.

The log is read with Inspect's own reader (`inspect_ai.log.read_eval_log`), so every log
format Inspect writes is read as Inspect reads it. A sample becomes one trajectory: the first
user message is the task, each assistant tool call an action, the tool message that answers
it (by `tool_call_id`) its real observation (an error result, its error message).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from backend.data.formats import IMPORTED_LICENCE, domain_of_calls
from backend.data.recorded.common import canonical_turns
from backend.errors import BadInputError
from backend.types import Trajectory, Turn


def read_log(path: Path) -> Any:
    """The eval log, read by Inspect.

    Raises:
        BadInputError: inspect-ai is not installed, or the file is no eval log Inspect reads.
    """
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise BadInputError(
            "Reading Inspect logs needs inspect-ai: pip install -e '.[inspect]'."
        ) from None
    try:
        return read_eval_log(str(path))
    except Exception as exc:  # Inspect raises its own and pydantic's errors for a bad log
        raise BadInputError(
            f"{path}: not an Inspect eval log ({type(exc).__name__}: {exc})"
        ) from None


def _text(message: Any) -> str:
    error = getattr(message, "error", None)
    if error is not None:
        return f"{getattr(error, 'type', 'error')}: {getattr(error, 'message', error)}"
    return str(message.text)


def sample_trajectory(sample: Any, where: str, domain: str | None, source: str) -> Trajectory:
    """One Inspect sample as a trajectory.

    Raises:
        BadInputError: the sample made no tool call; the message starts with `where`.
    """
    answers = {
        message.tool_call_id: _text(message)
        for message in sample.messages
        if message.role == "tool" and message.tool_call_id
    }
    calls = [
        call
        for message in sample.messages
        if message.role == "assistant"
        for call in (message.tool_calls or [])
    ]
    if not calls:
        raise BadInputError(f"{where}: the sample made no tool call to make a turn of")
    chosen = domain or domain_of_calls(call.function for call in calls)
    turns = [
        Turn(
            action=json.dumps(
                {"name": call.function, "arguments": dict(call.arguments or {})},
                ensure_ascii=False,
            ),
            observation=answers.get(call.id),
        )
        for call in calls
    ]
    user = next((m for m in sample.messages if m.role == "user"), None)
    return Trajectory(
        id=f"inspect:{sample.uuid or sample.id}:{sample.epoch}",
        domain=chosen,
        task=str(user.text) if user is not None else "",
        turns=canonical_turns(chosen, turns, where),
        source=source,
        licence=IMPORTED_LICENCE,
        metadata={"format": "inspect", "sample_id": str(sample.id), "epoch": sample.epoch},
    )


def read(path: Path, domain: str | None = None) -> list[Trajectory]:
    """Trajectories from every sample of an Inspect eval log.

    Raises:
        BadInputError: the log cannot be read, holds no samples, or a sample made no tool call
            (its id named).
    """
    log = read_log(path)
    samples = log.samples or []
    if not samples:
        raise BadInputError(f"{path}: the log holds no samples (was it written with samples?)")
    return [
        sample_trajectory(
            sample, f"{path}: sample {sample.id} (epoch {sample.epoch})", domain, str(path)
        )
        for sample in samples
    ]
