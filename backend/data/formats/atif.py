"""Harbor's Agent Trajectory Interchange Format (ATIF v1.4): read and written.

An ATIF trajectory is a root object (`schema_version`, `session_id`, `agent`, `steps`) whose
agent steps carry `tool_calls` and an `observation` whose `results` answer them by
`source_call_id`. Read as a world-model trajectory, each answered tool call is one turn: the
call is the action, its result the real observation. A domain's own action (a terminal
keystroke batch, a BrowserGym call) is written as a tool call named after the domain with the
action text as its `action` argument, so a trajectory written here reads back in its domain.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from backend.data.formats import IMPORTED_LICENCE, domain_of_calls
from backend.data.recorded.common import canonical_turns
from backend.domains.base import get_domain
from backend.errors import BadInputError
from backend.types import Trajectory, Turn

SCHEMA_VERSION = "ATIF-v1.4"


class AtifToolCall(BaseModel):
    """One tool call of an agent step."""

    model_config = ConfigDict(extra="allow")

    tool_call_id: str
    function_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class AtifResult(BaseModel):
    """One result of an observation; `source_call_id` names the call it answers."""

    model_config = ConfigDict(extra="allow")

    source_call_id: str | None = None
    content: str | None = None


class AtifObservation(BaseModel):
    """What the environment returned after a step."""

    model_config = ConfigDict(extra="allow")

    results: list[AtifResult]


class AtifMetrics(BaseModel):
    """A step's LLM metrics (the fields written here)."""

    model_config = ConfigDict(extra="allow")

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    extra: dict[str, Any] | None = None


class AtifStep(BaseModel):
    """One step: a system prompt, a user message or an agent turn."""

    model_config = ConfigDict(extra="allow")

    step_id: int = Field(ge=1)
    timestamp: str | None = None
    source: Literal["system", "user", "agent"]
    model_name: str | None = None
    message: str = ""
    reasoning_content: str | None = None
    tool_calls: list[AtifToolCall] | None = None
    observation: AtifObservation | None = None
    metrics: AtifMetrics | None = None
    extra: dict[str, Any] | None = None


class AtifAgent(BaseModel):
    """The agent system the trajectory records."""

    model_config = ConfigDict(extra="allow")

    name: str
    version: str
    model_name: str | None = None
    extra: dict[str, Any] | None = None


class AtifTrajectory(BaseModel):
    """A whole ATIF trajectory (the root object)."""

    model_config = ConfigDict(extra="allow")

    schema_version: str = SCHEMA_VERSION
    session_id: str
    agent: AtifAgent
    steps: list[AtifStep]
    notes: str | None = None
    final_metrics: dict[str, Any] | None = None
    extra: dict[str, Any] | None = None


def action_call(domain: str, action: str, call_id: str) -> AtifToolCall:
    """A turn's action as an ATIF tool call (a domain action under the domain's name)."""
    if get_domain(domain).tool_calls:  # already a `{"name", "arguments"}` call
        try:
            call = json.loads(action)
        except json.JSONDecodeError:
            call = None
        if isinstance(call, dict) and isinstance(call.get("name"), str):
            given = call.get("arguments")
            arguments: dict[str, Any] = given if isinstance(given, dict) else {}
            return AtifToolCall(
                tool_call_id=call_id, function_name=call["name"], arguments=arguments
            )
    return AtifToolCall(tool_call_id=call_id, function_name=domain, arguments={"action": action})


def _turns(trajectory: AtifTrajectory) -> tuple[list[tuple[AtifToolCall, str | None]], str]:
    """Every tool call with the content that answered it, and the first user message."""
    calls: list[tuple[AtifToolCall, str | None]] = []
    task = ""
    for step in trajectory.steps:
        if step.source == "user" and not task:
            task = step.message
        results = step.observation.results if step.observation else []
        by_id = {r.source_call_id: r.content for r in results if r.source_call_id}
        unmatched = [r.content for r in results if not r.source_call_id]
        for index, call in enumerate(step.tool_calls or []):
            content = by_id.get(call.tool_call_id)
            if content is None and index < len(unmatched):
                content = unmatched[index]
            calls.append((call, content))
    return calls, task


def to_trajectory(data: Any, where: str, domain: str | None, source: str) -> Trajectory:
    """One ATIF root object as a trajectory.

    Raises:
        BadInputError: not an ATIF trajectory, or one with no answered tool call; the message
            starts with `where`.
    """
    try:
        trajectory = AtifTrajectory.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'root'}: {e['msg']}" for e in exc.errors()[:3]
        )
        raise BadInputError(f"{where}: not an ATIF trajectory ({problems})") from None
    calls, task = _turns(trajectory)
    if not calls:
        raise BadInputError(f"{where}: the trajectory has no tool call to make a turn of")
    names = [call.function_name for call, _ in calls]
    chosen = domain or domain_of_calls(names)
    turns = []
    for call, content in calls:
        if call.function_name == chosen and "action" in call.arguments:
            action = str(call.arguments["action"])
        else:
            action = json.dumps(
                {"name": call.function_name, "arguments": call.arguments}, ensure_ascii=False
            )
        turns.append(Turn(action=action, observation=content))
    tools = sorted({name for name in names if name != chosen})
    return Trajectory(
        id=f"atif:{trajectory.session_id}",
        domain=chosen,
        task=task,
        turns=canonical_turns(chosen, turns, where),
        source=source,
        licence=IMPORTED_LICENCE,
        metadata={"format": "atif", "agent": trajectory.agent.name, "tool_names": tools},
    )


def read(path: Path, domain: str | None = None) -> list[Trajectory]:
    """Trajectories from an ATIF file: one root object (`.json`) or one per line (`.jsonl`).

    Raises:
        BadInputError: unreadable, or a record is not an ATIF trajectory (its line named).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise BadInputError(f"Cannot read {path}: {exc}") from None
    records: list[tuple[str, Any]] = []
    if path.suffix == ".jsonl":
        for number, line in enumerate(text.split("\n"), start=1):
            if line.strip():
                records.append((f"{path}:{number}", _json(line, f"{path}:{number}")))
    else:
        records.append((str(path), _json(text, str(path))))
    return [to_trajectory(data, where, domain, str(path)) for where, data in records]


def _json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInputError(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from None
