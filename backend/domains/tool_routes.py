"""Route tests on tool calls: a tool's editor commands, the tools a server declares read-only.

Apart from `backend.domains.routing` because they parse the action as a tool call
(`backend.domains.tools`), and the tool-call parser imports the domain base, which holds a
routing policy: kept in `routing`, they would make a cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backend.domains.routing import ActionTest
from backend.domains.tools import parse_tool_call
from backend.errors import BadActionError
from backend.types import PromptContext


def tool_commands(tool: str, commands: Sequence[str]) -> ActionTest:
    """Matches calls of `tool` whose `command` argument is one of `commands`."""
    allowed = frozenset(commands)

    def matches(action: str, context: PromptContext) -> bool:
        call = _call(action)
        return call is not None and call[0] == tool and call[1].get("command") in allowed

    return matches


def read_only_tool(action: str, context: PromptContext) -> bool:
    """Matches calls of a tool the session's tool list declares read-only.

    The list is what the live server answered to `tools/list`: MCP's `annotations.readOnlyHint`
    is the server's own statement that a call changes nothing, so running it for real is as
    safe as predicting it, and exact.
    """
    call = _call(action)
    if call is None:
        return False
    for tool in context.tools or []:
        if tool.get("name") == call[0]:
            annotations = tool.get("annotations") or {}
            return bool(isinstance(annotations, dict) and annotations.get("readOnlyHint"))
    return False


def _call(action: str) -> tuple[str, dict[str, Any]] | None:
    try:
        call = parse_tool_call(action)
    except BadActionError:
        return None
    return call.name, call.arguments
