"""The MCP mirror's pure parts: tool definitions, fixtures, results and output schemas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backend.errors import BadInputError
from backend.integrations.mcp_definitions import (
    conformed,
    load_fixtures,
    load_tools,
    mcp_tool,
    observation_result,
    read_only,
)

SCHEMA = {"type": "object", "properties": {"t": {"type": "string"}}, "required": ["t"]}
TIME = {"name": "now", "inputSchema": {"type": "object"}, "outputSchema": SCHEMA}


def test_openai_function_definitions_become_mcp_tools(tmp_path: Path) -> None:
    function = {"type": "function", "function": {"name": "f", "parameters": SCHEMA}}
    assert mcp_tool(function) == {"name": "f", "description": None, "inputSchema": SCHEMA}
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([function, {"name": "g"}]))
    assert [tool["name"] for tool in load_tools(path)] == ["f", "g"]
    path.write_text(json.dumps({"tools": [{"name": "h", "inputSchema": {"type": "string"}}]}))
    with pytest.raises(BadInputError, match="'h': its inputSchema must be"):
        load_tools(path)


def test_a_bad_fixture_is_named_by_its_position(tmp_path: Path) -> None:
    path = tmp_path / "fixtures.json"
    path.write_text(json.dumps([{"tool": "a", "result": "x"}, {"tool": "b"}]))
    with pytest.raises(BadInputError, match="fixture 2: Field required"):
        load_fixtures(path)


def test_only_tools_marked_read_only_are_allowed_by_default() -> None:
    tools = [
        {"name": "read", "annotations": {"readOnlyHint": True}},
        {"name": "write", "annotations": {"readOnlyHint": False}},
        {"name": "plain"},
    ]
    assert read_only(tools) == {"read"}


def test_observations_become_tool_results() -> None:
    ok = {"content": [{"type": "text", "text": "hi"}], "isError": False, "extra": 1}
    assert observation_result(json.dumps(ok)) == {"content": ok["content"], "isError": False}
    error = observation_result('{"error": {"code": -32602, "message": "bad"}}')
    assert error["isError"] and "bad" in error["content"][0]["text"]
    assert observation_result("plain words")["content"][0]["text"] == "plain words"


def test_a_result_meets_the_output_schema_or_says_why_not() -> None:
    as_text = {"content": [{"type": "text", "text": '{"t": "12:00"}'}], "isError": False}
    assert conformed(as_text, TIME)["structuredContent"] == {"t": "12:00"}
    wrong = {"content": [{"type": "text", "text": "x"}], "structuredContent": {"t": 5}}
    refused = conformed(wrong, TIME)
    assert refused["isError"] and "output schema" in refused["content"][-1]["text"]
    assert "structuredContent" not in refused
    assert conformed(wrong, {"name": "free"}) == wrong
