"""Sessions and rollouts as agent trajectories: Harbor's ATIF and Inspect AI eval logs.

A stored prediction in its session is a trajectory: the session's earlier steps, then the step
the prediction answered. Each export row is that trajectory, so a session's last prediction
carries the whole session and every earlier one the part of it the model had seen. The agent's
actions are tool calls (a domain's own action, such as a terminal keystroke batch, is a call
named after the domain); every observation is the best known truth (an annotation's, else the
real one, else the model's prediction where nobody knows reality), and the step answered by the
prediction also carries the prediction itself, the real observation and the scores, so the
world model's fidelity travels with the trajectory.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from backend.data.formats.atif import (
    SCHEMA_VERSION,
    AtifAgent,
    AtifObservation,
    AtifResult,
    AtifStep,
    AtifToolCall,
    AtifTrajectory,
    action_call,
)
from backend.errors import ExportError
from backend.export.records import ExportContext, ExportRecord
from backend.history import state_after
from backend.provenance import stored

AGENT_NAME = "agentworld-playground"
AGENT_VERSION = "1"
"""Bumped whenever the trajectory rows written here change shape."""


def _calls(record: ExportRecord) -> list[tuple[AtifToolCall, str]]:
    """Every action of the trajectory as a tool call, with the observation shown after it."""
    calls = []
    for index, turn in enumerate(record.history, start=1):
        calls.append(
            (action_call(record.domain, turn.action, f"call_{index}"), state_after(turn) or "")
        )
    final = record.reference if record.reference is not None else record.predicted_observation
    calls.append(
        (action_call(record.domain, record.action, f"call_{len(record.history) + 1}"), final)
    )
    return calls


def _outcome(record: ExportRecord) -> dict[str, Any]:
    """What the world model did at the exported step."""
    return {
        "predicted_observation": record.predicted_observation,
        "real_observation": record.real_observation,
        "reference_observation": record.reference,
        "verdict": record.annotation.verdict.value if record.annotation else None,
        "scores": {score.name: score.value for score in record.scores},
        "world_model": {"engine": record.engine, "model": record.model},
        "provenance": stored(record.provenance) if record.provenance else None,
        "real_provenance": stored(record.real_provenance) if record.real_provenance else None,
    }


def build_atif(record: ExportRecord, ctx: ExportContext) -> Iterator[AtifTrajectory]:
    """One ATIF trajectory: the session up to and including the record's step."""
    steps: list[AtifStep] = []
    if record.context.task:
        steps.append(AtifStep(step_id=1, source="user", message=record.context.task))
    if record.initial_state is not None:
        start = AtifObservation(results=[AtifResult(content=record.initial_state)])
        steps.append(
            AtifStep(
                step_id=len(steps) + 1,
                source="system",
                message="The environment's state before the first action.",
                observation=start,
            )
        )
    calls = _calls(record)
    sources = [turn.provenance for turn in record.history]
    for index, (call, shown) in enumerate(calls, start=1):
        last = index == len(calls)
        source = sources[index - 1] if index <= len(sources) else None
        extra = {"world_model": _outcome(record)} if last else None
        if source is not None:
            extra = {"provenance": stored(source)}
        steps.append(
            AtifStep(
                step_id=len(steps) + 1,
                source="agent",
                timestamp=record.created_at.astimezone(UTC).isoformat() if last else None,
                message="",
                tool_calls=[call],
                observation=AtifObservation(
                    results=[AtifResult(source_call_id=call.tool_call_id, content=shown)]
                ),
                extra=extra,
            )
        )
    yield AtifTrajectory(
        schema_version=SCHEMA_VERSION,
        session_id=f"awp-session-{record.session_id}-step-{record.step_index + 1}",
        agent=AtifAgent(
            name=AGENT_NAME,
            version=AGENT_VERSION,
            extra={"world_model_engine": record.engine, "world_model": record.model},
        ),
        steps=steps,
        notes=(
            "A session of AgentWorld Playground: the agent's actions as tool calls, what the "
            "environment showed after each; the last step's extra holds the world model's "
            "prediction, the real observation and their scores."
        ),
        final_metrics={"total_steps": len(steps)},
        extra={"domain": record.domain, **record.links()},
    )


class InspectMessage(BaseModel):
    """One message of an exported Inspect sample."""

    role: Literal["user", "assistant", "tool"]
    content: str
    tool_call_id: str | None = None
    function: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)


class InspectSampleRow(BaseModel):
    """One export row: an Inspect sample (written into one eval log by `write_inspect_log`)."""

    schema_version: Literal[1] = 1
    id: str
    input: str
    messages: list[InspectMessage]
    metadata: dict[str, Any]


def build_inspect(record: ExportRecord, ctx: ExportContext) -> Iterator[InspectSampleRow]:
    """One Inspect sample: the task, then each action as a tool call and its observation."""
    task = record.context.task or f"Act in the {record.domain} environment."
    messages = [InspectMessage(role="user", content=task)]
    for call, shown in _calls(record):
        messages.append(
            InspectMessage(
                role="assistant",
                content="",
                tool_call_id=call.tool_call_id,
                function=call.function_name,
                arguments=call.arguments,
            )
        )
        messages.append(
            InspectMessage(
                role="tool",
                content=shown,
                tool_call_id=call.tool_call_id,
                function=call.function_name,
            )
        )
    yield InspectSampleRow(
        id=f"session-{record.session_id}-step-{record.step_index + 1}",
        input=task,
        messages=messages,
        metadata={**record.links(), "world_model": _outcome(record)},
    )


def write_inspect_log(rows: Iterable[BaseModel], out: Path) -> int:
    """Write the samples as one Inspect eval log (`.eval` or `.json`) that `inspect view` opens.

    Raises:
        ExportError: the path is not `.eval`/`.json`, or inspect-ai is not installed.
    """
    if out.suffix not in (".eval", ".json"):
        raise ExportError(f"An Inspect log is written to a .eval or .json file, not {out.name}.")
    try:
        from inspect_ai.log import (
            EvalConfig,
            EvalDataset,
            EvalLog,
            EvalSample,
            EvalSpec,
            write_eval_log,
        )
        from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser
        from inspect_ai.tool import ToolCall
    except ImportError:
        raise ExportError(
            "Writing Inspect logs needs inspect-ai: pip install -e '.[inspect]'."
        ) from None
    samples = []
    for built in rows:
        row = InspectSampleRow.model_validate(built, from_attributes=True)
        chat: list[Any] = []
        for message in row.messages:
            if message.role == "user":
                chat.append(ChatMessageUser(content=message.content))
            elif message.role == "assistant":
                call = ToolCall(
                    id=str(message.tool_call_id),
                    function=str(message.function),
                    arguments=message.arguments,
                )
                chat.append(ChatMessageAssistant(content=message.content, tool_calls=[call]))
            else:
                chat.append(
                    ChatMessageTool(
                        content=message.content,
                        tool_call_id=message.tool_call_id,
                        function=message.function,
                    )
                )
        samples.append(
            EvalSample(
                id=row.id, epoch=1, input=row.input, target="", messages=chat, metadata=row.metadata
            )
        )
    spec = EvalSpec(
        created=datetime.now(UTC).isoformat(),
        task="agentworld-playground/sessions",
        dataset=EvalDataset(name="agentworld-playground sessions", samples=len(samples)),
        model="agentworld-playground/world-model",
        config=EvalConfig(),
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(EvalLog(eval=spec, samples=samples, status="success"), str(out))
    return len(samples)
