"""MCP domain: a JSON tool call against MCP tool definitions, the raw tool result back."""

from __future__ import annotations

from backend.domains import metric_sets
from backend.domains.base import DOMAINS, ActionKind, Domain, PromptContext, builtin_prompts
from backend.domains.routing import Route, RoutingPolicy
from backend.domains.tool_routes import read_only_tool
from backend.domains.tools import validate_tool_call
from backend.types import ObservationKind

HYBRID = RoutingPolicy(
    (
        Route(
            "executor",
            read_only_tool,
            "tools the live server declares read-only (annotations.readOnlyHint) run for real",
        ),
    )
)

EXAMPLE = '{"name": "list_directory", "arguments": {"path": "/home/user/projects"}}'


def validate(action: str, ctx: PromptContext) -> str:
    """Validate an MCP tool call and return it as `{"name", "arguments"}`.

    With tool definitions in `ctx`, the call is also checked against them: the tool must exist
    (with a suggestion for near misses), required arguments must be present and arguments must
    have the primitive types the input schema declares.

    Raises:
        BadActionError: malformed call, unknown tool, missing or mistyped argument.
    """
    return validate_tool_call(action, ctx, EXAMPLE)


MCP = DOMAINS.register(
    "mcp",
    Domain(
        name="mcp",
        title="MCP tools",
        observation_kind=ObservationKind.JSON,
        action_kind=ActionKind.TOOL_CALL,
        action_help=(
            'One MCP tool call as JSON: {"name": tool, "arguments": {...}}. When the session '
            "carries tool definitions (MCP inputSchema or OpenAI function parameters), the tool "
            "must be one of them, required arguments must be present and strings, numbers, "
            "booleans, arrays and objects must match the schema. The observation is the tool's "
            "raw result, or the error the server would return."
        ),
        example_action=EXAMPLE,
        validate=validate,
        renderer="json",
        live=True,
        hybrid=HYBRID,
        metrics=metric_sets.JSON,
        prompts=builtin_prompts("mcp"),
    ),
)
