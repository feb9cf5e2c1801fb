"""`awp mcp serve` against the upstream clients: the MCP Python SDK and the MCP Inspector's CLI.

Each server is a real `awp` process; its clients are the SDK's `ClientSession` (stdio and
streamable HTTP) and the npm Inspector (`scripts/setup.sh test` installs it). What every call
stored is read back from the data directory the process wrote.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from app.context import build_context
from backend.integrations.mcp_mirror import META_PROVENANCE, META_SOURCE
from backend.provenance import Recorded
from tests.support.app_server import free_port
from tests.support.live import skip_unless_live

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
INSPECTOR = Path(sys.prefix) / "share" / "awp-mcp-inspector" / "node_modules" / ".bin"
TOOLS = {
    "tools": [
        {
            "name": "get_weather",
            "description": "Weather for a city",
            "inputSchema": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
        {
            "name": "list_files",
            "description": "List the files of a folder",
            "inputSchema": {"type": "object", "properties": {"folder": {"type": "string"}}},
            "annotations": {"readOnlyHint": True},
        },
    ]
}
FIXTURES = [{"tool": "get_weather", "arguments": {"city": "Paris"}, "result": "Sunny, 21C"}]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    fixtures = tmp_path / "fixtures.json"
    fixtures.write_text(json.dumps(FIXTURES))
    return {"tools": str(tools), "fixtures": str(fixtures)}


@pytest.fixture
def server_env(awp_data: Path, tmp_path: Path) -> dict[str, str]:
    """The environment of `awp` processes: this checkout's code, the test's data folder."""
    return {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "AWP_DATA_DIR": str(awp_data),
        "MCP_CATALOG_PATH": str(tmp_path / "inspector-catalog.json"),
    }


def awp_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "app", "mcp", "serve", "--engine", "persistence", *args]


async def stdio_calls(
    env: dict[str, str], args: list[str], calls: list[tuple[str, dict[str, Any]]]
) -> tuple[list[Any], list[Any]]:
    """List the tools of `awp mcp serve ARGS` over stdio and make each call (errors kept)."""
    command = awp_command(*args)
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(REPO))
    async with stdio_client(params) as streams, ClientSession(*streams) as session:
        await session.initialize()
        tools = (await session.list_tools()).tools
        results: list[Any] = []
        for name, arguments in calls:
            try:
                results.append(await session.call_tool(name, arguments))
            except MCPError as exc:
                results.append(exc)
        return tools, results


def source(result: Any) -> str:
    return str((result.meta or {})[META_SOURCE])


def provenance(result: Any) -> dict[str, Any]:
    """Where the result's observation came from, as `_meta` names it."""
    return dict((result.meta or {})[META_PROVENANCE])


def stored_sessions() -> list[Any]:
    with build_context() as context:
        return [context.sessions.load_session(s.id) for s in context.sessions.list_sessions()]


def test_the_sdk_client_over_stdio_lists_the_tools_and_each_call_says_who_answered(
    server_env: dict[str, str], files: dict[str, str]
) -> None:
    calls = [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Rome"}),
        ("get_weather", {}),
        ("send_email", {"to": "x"}),
    ]
    args = ["--tools", files["tools"], "--fixtures", files["fixtures"]]
    tools, results = asyncio.run(stdio_calls(server_env, args, calls))
    assert [t.model_dump(by_alias=True, exclude_none=True) for t in tools] == TOOLS["tools"]
    pinned, simulated, missing, unknown = results
    assert source(pinned) == "fixture" and pinned.content[0].text == "Sunny, 21C"
    assert source(simulated) == "world_model"
    assert provenance(pinned) == {
        "kind": "recorded",
        "dataset": "mcp fixtures",
        "row_id": "fixture:get_weather",
    }
    predicted = provenance(simulated)
    assert predicted == {
        "kind": "predicted",
        "engine": "persistence",
        "model": "baseline:persistence",
        "spec": predicted["spec"],  # the digest of the world spec it ran under
    }
    assert len(predicted["spec"]) == 16
    assert isinstance(missing, MCPError) and "city" in missing.message
    assert isinstance(unknown, MCPError) and "send_email" in unknown.message

    (session,) = stored_sessions()
    assert session.kind == "mcp" and [s.action for s in session.steps] == [
        '{"name": "get_weather", "arguments": {"city": "Paris"}}',
        '{"name": "get_weather", "arguments": {"city": "Rome"}}',
    ]
    fixture_step, model_step = session.steps
    assert fixture_step.origin == "recorded" and not fixture_step.predictions
    assert fixture_step.provenance == Recorded(dataset="mcp fixtures", row_id="fixture:get_weather")
    assert json.loads(fixture_step.real_observation)["content"][0]["text"] == "Sunny, 21C"
    (stored,) = model_step.predictions
    prediction = stored.prediction
    assert prediction.engine == "persistence" and model_step.real_observation is None
    assert '"get_weather"' in prediction.messages[0].content  # the tools reach the prompt


@skip_unless_live("mcp")
def test_a_mirrored_server_answers_allowed_tools_then_its_record_answers_repeats(
    server_env: dict[str, str],
) -> None:
    now = ("get_current_time", {"timezone": "Etc/UTC"})
    convert = (
        "convert_time",
        {"source_timezone": "Etc/UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
    )
    mirror = ["--mirror", "mcp-server-time", "--allow", "get_current_time"]
    tools, results = asyncio.run(stdio_calls(server_env, mirror, [now, now, convert]))
    assert {tool.name for tool in tools} == {"get_current_time", "convert_time"}
    assert [source(r) for r in results] == ["real", "record", "world_model"]
    real, repeat, _ = results
    assert real.structured_content["timezone"] == "Etc/UTC"
    assert repeat.structured_content == real.structured_content
    # The record answers with the earlier real call's own source: a live mcp call, its time.
    assert provenance(real)["kind"] == "live" and provenance(real)["sandbox"] == "mcp"
    assert provenance(repeat) == provenance(real)

    _, later = asyncio.run(stdio_calls(server_env, [*mirror, "--no-real"], [now]))
    assert source(later[0]) == "record" and later[0].structured_content == real.structured_content
    first, second = sorted(stored_sessions(), key=lambda s: s.id)
    assert [step.origin for step in first.steps] == ["live", "recorded", None]
    assert [step.origin for step in second.steps] == ["recorded"]


@contextmanager
def http_server(env: dict[str, str], *args: str) -> Iterator[str]:
    """`awp mcp serve --transport http ARGS` on a free port; yields its `/mcp` URL."""
    port = free_port()
    command = awp_command(*args, "--transport", "http", "--port", str(port))
    process = subprocess.Popen(
        command, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        for _ in range(600):
            if process.poll() is not None:
                raise AssertionError(process.stderr.read().decode() if process.stderr else "")
            try:
                httpx.get(url, timeout=1.0)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def inspector(env: dict[str, str], *args: str) -> dict[str, Any]:
    """Run the MCP Inspector's CLI mode; its JSON output."""
    program = INSPECTOR / "mcp-inspector"
    done = subprocess.run(
        [str(program), "--cli", *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


needs_inspector = pytest.mark.skipif(
    not (INSPECTOR / "mcp-inspector").exists(),
    reason="the MCP Inspector is not installed (bash scripts/setup.sh test installs it)",
)


async def http_calls(url: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async with streamable_http_client(url) as streams, ClientSession(*streams[:2]) as session:
        await session.initialize()
        return [await session.call_tool(name, arguments) for name, arguments in calls]


@needs_inspector
def test_streamable_http_serves_the_sdk_client_and_the_inspector(
    server_env: dict[str, str], files: dict[str, str]
) -> None:
    args = ["--tools", files["tools"], "--fixtures", files["fixtures"]]
    with http_server(server_env, *args) as url:
        (pinned,) = asyncio.run(http_calls(url, [("get_weather", {"city": "Paris"})]))
        listed = inspector(server_env, url, "--transport", "http", "--method", "tools/list")
        called = inspector(
            server_env,
            url,
            "--transport",
            "http",
            "--method",
            "tools/call",
            "--tool-name",
            "list_files",
            "--tool-arg",
            "folder=/tmp",
        )
    assert source(pinned) == "fixture"
    assert [tool["name"] for tool in listed["tools"]] == ["get_weather", "list_files"]
    assert listed["tools"][0]["inputSchema"] == TOOLS["tools"][0]["inputSchema"]
    assert called["_meta"][META_SOURCE] == "world_model"
    assert called["isError"] is False


@needs_inspector
def test_the_inspector_over_stdio_calls_the_world_model_tools(
    server_env: dict[str, str],
) -> None:
    command = awp_command("--world-model-tools")
    # The Inspector gives a stdio server only a default environment (PATH, HOME): without these
    # the server would open the user's own data folder.
    passed = [
        arg
        for name in ("AWP_DATA_DIR", "PYTHONPATH")
        for arg in ("-e", f"{name}={server_env[name]}")
    ]
    scored = inspector(
        server_env,
        *passed,
        *command,
        "--method",
        "tools/call",
        "--tool-name",
        "score",
        "--tool-arg",
        "domain=terminal",
        "predicted=ls",
        "reference=ls",
    )
    assert scored["structuredContent"]["headline"] == "screen_delta"
    assert scored["structuredContent"]["headline_value"] == 1.0


def test_the_world_model_tools_simulate_sample_and_store(server_env: dict[str, str]) -> None:
    history = [{"action": '[{"keystrokes": "cd /tmp\\n", "duration": 1}]', "observation": "/tmp$ "}]
    ls = [{"keystrokes": "ls\n", "duration": 1}]
    calls = [
        ("simulate_step", {"domain": "terminal", "action": ls, "history": history}),
        ("many_futures", {"domain": "terminal", "action": json.dumps(ls), "k": 3}),
        ("simulate_step", {"domain": "chess", "action": "e4"}),
    ]
    tools, (step, futures, refused) = asyncio.run(
        stdio_calls(server_env, ["--world-model-tools"], calls)
    )
    assert [tool.name for tool in tools] == ["simulate_step", "many_futures", "score"]
    assert step.structured_content["observation"] == "/tmp$"  # persistence repeats the state
    assert futures.structured_content["spread"]["samples"] == 3
    assert len(futures.structured_content["prediction_ids"]) == 3
    assert refused.is_error and "chess" in refused.structured_content["error"]
    sessions = {s.id: s for s in stored_sessions()}
    planned = sessions[step.structured_content["session_id"]]
    assert [s.origin for s in planned.steps] == ["recorded", None]
    sampled = sessions[futures.structured_content["session_id"]]
    assert len(sampled.steps[0].predictions) == 3
