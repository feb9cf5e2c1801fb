"""MCP tool definitions, pinned fixtures and tool results: the mirror's pure parts.

The mirror (`backend.integrations.mcp_mirror`) serves tools from a JSON file or a real server
and answers calls from fixtures, records, reality or the world model. What those tools, fixtures
and results look like on the wire, and how a file of them is read, is kept here so it can be
checked without a server or a model.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from backend.errors import BadInputError


class Fixture(BaseModel):
    """A pinned answer: `result` for calls of `tool` (with exactly `arguments`, when given).

    `result` is an MCP tool result (`content`, `structuredContent`, `isError`) or a plain text,
    answered as one text block.
    """

    model_config = ConfigDict(frozen=True)

    tool: str
    arguments: dict[str, Any] | None = None
    result: dict[str, Any] | str

    def matches(self, name: str, arguments: dict[str, Any]) -> bool:
        """Whether this fixture answers the call."""
        return self.tool == name and (self.arguments is None or self.arguments == arguments)

    def observation(self) -> str:
        """The fixture's answer in the mcp observation form (the result as JSON)."""
        result = self.result
        if isinstance(result, str):
            result = {"content": [{"type": "text", "text": result}], "isError": False}
        return json.dumps(result, ensure_ascii=False)


def observation_result(observation: str) -> dict[str, Any]:
    """An mcp observation (a result or a JSON-RPC error object, as JSON) as a tool result.

    A world model's answer that is not a result object becomes one text block, so whatever it
    predicted reaches the client.
    """
    try:
        data = json.loads(observation)
    except json.JSONDecodeError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("content"), list):
        kept = ("content", "structuredContent", "isError")
        return {key: data[key] for key in kept if key in data}
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        message = json.dumps(data["error"], ensure_ascii=False)
        return {"content": [{"type": "text", "text": message}], "isError": True}
    return {"content": [{"type": "text", "text": observation}], "isError": False}


def conformed(result: dict[str, Any], tool: dict[str, Any] | None) -> dict[str, Any]:
    """`result` made to meet the tool's output schema, or an error result saying why not.

    MCP clients refuse a successful result of a tool with an `outputSchema` unless its
    `structuredContent` conforms (the Python SDK raises). A prediction that wrote the structured
    value only as text gets it parsed from there; one that does not conform becomes an error
    result naming the problem, with the predicted text kept, so the client sees a failure it
    can read instead of breaking on an invalid success.
    """
    schema = (tool or {}).get("outputSchema")
    if not isinstance(schema, dict) or result.get("isError"):
        return result
    from jsonschema import validators

    validator = validators.validator_for(schema)(schema)
    texts = [b.get("text", "") for b in result.get("content", []) if b.get("type") == "text"]
    candidates = [result["structuredContent"]] if "structuredContent" in result else []
    for text in texts:
        try:
            candidates.append(json.loads(text))
        except json.JSONDecodeError:
            continue
    for candidate in candidates:
        if validator.is_valid(candidate):
            return {**result, "structuredContent": candidate}
    problem = "no structured content"
    if candidates:
        problem = str(next(iter(validator.iter_errors(candidates[0]))).message)
    note = f"The simulated result does not meet the tool's output schema: {problem}."
    content = [*result.get("content", []), {"type": "text", "text": note}]
    return {"content": content, "isError": True}


def mcp_tool(definition: dict[str, Any]) -> dict[str, Any]:
    """A tool definition in the MCP `tools/list` form; OpenAI function definitions converted.

    Raises:
        BadInputError: no name, or an input schema that is not an object.
    """
    function = definition.get("function") if definition.get("type") == "function" else None
    if isinstance(function, dict):
        definition = {
            "name": function.get("name"),
            "description": function.get("description"),
            "inputSchema": function.get("parameters") or {"type": "object", "properties": {}},
        }
    name = definition.get("name")
    if not isinstance(name, str) or not name:
        raise BadInputError(f"A tool definition has no name: {json.dumps(definition)[:120]}")
    schema = definition.get("inputSchema", definition.get("input_schema"))
    if schema is None:
        schema = {"type": "object", "properties": {}}
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise BadInputError(f"Tool {name!r}: its inputSchema must be a JSON object schema.")
    tool = {k: v for k, v in definition.items() if k not in ("input_schema",)}
    tool["inputSchema"] = schema
    return tool


def load_tools(path: Path) -> list[dict[str, Any]]:
    """Tool definitions from a JSON file: a list, or `{"tools": [...]}` as `tools/list` gives.

    Raises:
        BadInputError: the file cannot be read, is not JSON, or holds no tool list.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise BadInputError(f"Cannot read tool definitions from {path}: {exc}") from None
    tools = data.get("tools") if isinstance(data, dict) else data
    if not isinstance(tools, list) or not tools:
        raise BadInputError(f'{path} holds no tool list (a JSON list, or {{"tools": [...]}}).')
    return [mcp_tool(tool) for tool in tools if isinstance(tool, dict)]


def load_fixtures(path: Path) -> list[Fixture]:
    """Fixtures from a JSON file (a list of `{"tool", "arguments"?, "result"}`).

    Raises:
        BadInputError: unreadable, or an entry is malformed (its position named).
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise BadInputError(f"Cannot read fixtures from {path}: {exc}") from None
    entries = data.get("fixtures") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise BadInputError(f"{path} holds no fixture list.")
    fixtures = []
    for index, entry in enumerate(entries, start=1):
        try:
            fixtures.append(Fixture.model_validate(entry))
        except ValidationError as exc:
            raise BadInputError(f"{path}: fixture {index}: {exc.errors()[0]['msg']}") from None
    return fixtures


def read_only(tools: Sequence[dict[str, Any]]) -> frozenset[str]:
    """The tools a server marks read-only (`annotations.readOnlyHint`): the default allow-list."""
    return frozenset(
        str(tool["name"])
        for tool in tools
        if isinstance(tool.get("annotations"), dict) and tool["annotations"].get("readOnlyHint")
    )
