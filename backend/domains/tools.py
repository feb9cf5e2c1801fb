"""Tool calls shared by the mcp, swe and search domains: call shapes, checks against schemas.

Agents write tool calls in two shapes: `{"name", "arguments"}` (MCP, AgentWorldBench turns) and the
OpenAI `{"function": {"name", "arguments"}}`, often with the arguments as a JSON-encoded string. All
of them become the first shape, so one action has one text whatever the agent framework.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from backend.domains.base import PromptContext
from backend.domains.validation import (
    canonical_json,
    check_keys,
    clean_action,
    did_you_mean,
    expect_object,
    expect_type,
    is_json_type,
    json_type,
    parse_json,
    quoted,
)
from backend.errors import BadActionError

_CALL_KEYS = ("name", "arguments")
_OPENAI_KEYS = ("function", "type", "id")
_SCHEMA_KEYS = ("inputSchema", "input_schema", "parameters")


@dataclass(frozen=True)
class ToolCall:
    """A parsed tool call in the canonical `{"name", "arguments"}` shape."""

    name: str
    arguments: dict[str, Any]

    def canonical(self) -> str:
        """Return the call as the turn text shows it."""
        return canonical_json({"name": self.name, "arguments": self.arguments})


@dataclass(frozen=True)
class ToolSchema:
    """What a tool definition says about its arguments (JSON Schema `properties`/`required`)."""

    properties: dict[str, Any]
    required: tuple[str, ...]
    closed: bool


def parse_tool_call(text: str) -> ToolCall:
    """Parse either call shape, decoding string-encoded arguments.

    Raises:
        BadActionError: not a JSON object, unknown or missing fields, arguments not an object.
    """
    value = expect_object(parse_json(text), "The action")
    if "function" in value:
        check_keys(value, ("function",), _OPENAI_KEYS, "The OpenAI-style tool call")
        value = expect_object(value["function"], "The call's 'function' field")
    check_keys(value, ("name",), _CALL_KEYS, "The tool call")
    name = value["name"]
    expect_type(name, "string", "The tool call's 'name'")
    if not name.strip():
        raise BadActionError("The tool call's 'name' is empty.")
    arguments = value.get("arguments", {})
    if isinstance(arguments, str):
        arguments = parse_json(arguments, "The tool call's 'arguments' string") if arguments else {}
    return ToolCall(name, expect_object(arguments, "The tool call's 'arguments'"))


def tool_schemas(tools: list[dict[str, Any]] | None) -> dict[str, ToolSchema]:
    """Index MCP (`inputSchema`), Anthropic (`input_schema`) and OpenAI tool definitions by name.

    Definitions come from datasets of varying quality; entries without a name are skipped rather
    than failing every action of the session.
    """
    schemas: dict[str, ToolSchema] = {}
    for tool in tools or []:
        spec = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        name = spec.get("name") if isinstance(spec, dict) else None
        if not isinstance(spec, dict) or not isinstance(name, str):
            continue
        schema: dict[str, Any] = next(
            (spec[key] for key in _SCHEMA_KEYS if isinstance(spec.get(key), dict)), {}
        )
        properties = schema.get("properties")
        required = schema.get("required")
        names = (
            [key for key in required if isinstance(key, str)] if isinstance(required, list) else []
        )
        schemas[name] = ToolSchema(
            properties=properties if isinstance(properties, dict) else {},
            required=tuple(names),
            closed=schema.get("additionalProperties") is False,
        )
    return schemas


def check_call(call: ToolCall, schemas: Mapping[str, ToolSchema]) -> None:
    """Check a call against the tool definitions: known name, required arguments, primitive types.

    Raises:
        BadActionError: unknown tool (with a suggestion), missing or unknown argument, wrong type.
    """
    schema = schemas.get(call.name)
    if schema is None:
        hint = did_you_mean(call.name, schemas)
        raise BadActionError(
            f"Unknown tool {call.name!r}.{hint} Available tools: {quoted(schemas)}."
        )
    missing = [key for key in schema.required if key not in call.arguments]
    if missing:
        raise BadActionError(
            f"Tool {call.name!r} is missing required argument(s) {quoted(missing)}."
        )
    for key, value in call.arguments.items():
        spec = schema.properties.get(key)
        if not isinstance(spec, dict):
            if schema.closed:
                hint = did_you_mean(key, schema.properties)
                raise BadActionError(f"Tool {call.name!r} has no argument {key!r}.{hint}")
            continue
        declared = spec.get("type")
        listed = declared if isinstance(declared, list) else [declared]
        types = [name for name in listed if isinstance(name, str)]
        if types and not any(is_json_type(value, name) for name in types):
            raise BadActionError(
                f"Argument {key!r} of tool {call.name!r} must be {' or '.join(types)}, "
                f"not {json_type(value)}."
            )


def validate_tool_call(action: str, ctx: PromptContext, example: str) -> str:
    """Validate a tool-call action, against `ctx.tools` when the session has definitions.

    Raises:
        BadActionError: the action is not a well-formed call or does not fit its tool's schema.
    """
    call = parse_tool_call(clean_action(action, example))
    if ctx.tools:
        check_call(call, tool_schemas(ctx.tools))
    return call.canonical()
