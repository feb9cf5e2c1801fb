"""tau-bench historical trajectories: an airline agent's tool calls and the tools' real returns.

Each record holds OpenAI chat messages; an assistant message with `tool_calls` is followed by the
`role=tool` message holding the return value of tau-bench's deterministic Python tool over its
JSON database. Tool-call ids repeat inside some trajectories, so calls are paired with the tool
message right after them (checked by id and name), not looked up by id.

Action: `{"name", "arguments"}` JSON of the call. Observation: the tool message content as
recorded. The file holds no tool definitions, so no system prompt is built; the simulated user's
instruction becomes the task. Trajectories without any tool call have no turn and are skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from backend.data.recorded.common import Provenance, parse_arguments, read_json, tool_call_action
from backend.errors import BadInputError
from backend.types import Trajectory, Turn

FILE = "mcp/tau-bench/gpt-4o-airline.json"
PROVENANCE = Provenance(
    "sierra-research/tau-bench", "59a200c6d575d595120f1cb70fea53cef0632f6b", "MIT"
)
NOTES = (
    "tau-bench airline: gpt-4o agent, LLM-simulated user. Each action is the agent's recorded "
    "tool call as {name, arguments}; each observation is the recorded return value of "
    "tau-bench's Python tool over its database. OpenAI function calling, not MCP JSON-RPC."
)


def _turns(messages: list[dict[str, Any]], where: str) -> list[Turn]:
    """Pair every tool call with the tool message that follows it."""
    turns: list[Turn] = []
    for index, message in enumerate(messages):
        for call in message.get("tool_calls") or []:
            reply = messages[index + 1] if index + 1 < len(messages) else {}
            name = call["function"]["name"]
            if reply.get("role") != "tool" or (reply["tool_call_id"], reply["name"]) != (
                call["id"],
                name,
            ):
                raise BadInputError(f"{where}: tool call {call['id']} has no reply after it")
            arguments = parse_arguments(call["function"]["arguments"], where)
            turns.append(
                Turn(action=tool_call_action(name, arguments), observation=reply["content"])
            )
    return turns


def convert(root: Path) -> list[Trajectory]:
    """Every tau-bench trajectory with at least one tool call, in file order."""
    trajectories = []
    for number, record in enumerate(read_json(root / FILE)):
        key = f"{record['task_id']}/trial{record['trial']}"
        turns = _turns(record["traj"], f"{FILE} record {number}")
        if not turns:
            continue
        trajectories.append(
            PROVENANCE.trajectory(
                id=f"tau-bench/airline/{key}",
                domain="mcp",
                path="historical_trajectories/gpt-4o-airline.json",
                files=[FILE],
                turns=turns,
                task=record["info"]["task"]["instruction"],
                notes=NOTES,
                metadata={"task_id": record["task_id"], "trial": record["trial"]},
            )
        )
    return trajectories
