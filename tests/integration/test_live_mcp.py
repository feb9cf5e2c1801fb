"""The live mcp environment: real MCP servers over stdio, inside the sandbox."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.domains.mcp import validate
from backend.envs.live.base import live_kind
from backend.envs.live.mcp import McpEnvironment
from backend.envs.live.mcp_servers import SERVER_SETS
from backend.envs.live.procs import processes
from backend.errors import BadActionError, LiveEnvironmentError, UnknownNameError
from tests.support.live import call, leftovers, live_config, sandbox_of, skip_unless_live

pytestmark = skip_unless_live("mcp")


def _needs(task: str) -> pytest.MarkDecorator:
    missing = "; ".join(filter(None, (s.needs() for s in SERVER_SETS[task].servers)))
    return pytest.mark.skipif(bool(missing), reason=f"mcp task {task}: {missing}")


@pytest.fixture
def mcp(tmp_path: Path) -> Iterator[McpEnvironment]:
    env = live_kind("mcp").build(live_config(tmp_path))
    assert isinstance(env, McpEnvironment)
    yield env
    env.close()


def result(observation: str) -> dict[str, object]:
    return json.loads(observation)


def text(observation: str) -> str:
    content = result(observation)["content"]
    assert isinstance(content, list)
    return "".join(part["text"] for part in content)


@_needs("time")
def test_time_server_returns_json(mcp: McpEnvironment) -> None:
    listing = json.loads(mcp.start("time"))
    assert {tool["name"] for tool in listing["tools"]} == {"get_current_time", "convert_time"}
    step = mcp.act(call("get_current_time", timezone="Asia/Tokyo"))
    body = result(step.observation)
    assert body["isError"] is False
    assert json.loads(text(step.observation))["timezone"] == "Asia/Tokyo"
    assert body["structuredContent"]["timezone"] == "Asia/Tokyo"  # type: ignore[index]
    converted = mcp.act(
        call(
            "convert_time",
            source_timezone="America/New_York",
            time="09:30",
            target_timezone="Europe/London",
        )
    )
    assert json.loads(text(converted.observation))["target"]["datetime"].endswith("14:30:00+00:00")


@_needs("time")
def test_tool_definitions_feed_the_domain_validator(mcp: McpEnvironment) -> None:
    mcp.start("time")
    assert mcp.version.split("; ")[1].startswith("mcp-server-time 20")
    ctx = mcp.prompt_context()
    assert ctx.tools and all("inputSchema" in tool for tool in ctx.tools)
    assert ctx.task is None  # a start state without a goal
    assert validate(call("get_current_time", timezone="UTC"), ctx)
    with pytest.raises(BadActionError, match="missing required argument"):
        validate(call("get_current_time"), ctx)


@_needs("time")
def test_errors_are_observations(mcp: McpEnvironment) -> None:
    mcp.start("time")
    bad_zone = mcp.act(call("get_current_time", timezone="Mars/Olympus"))
    assert result(bad_zone.observation)["isError"] is True
    assert "Invalid timezone" in text(bad_zone.observation)
    unknown = mcp.act(call("get_weather", city="Paris"))
    assert result(unknown.observation) == {
        "error": {"code": -32602, "message": "Unknown tool: get_weather"}
    }
    assert unknown.info["error"] is True


@_needs("git")
def test_git_server_sees_the_prepared_repository(mcp: McpEnvironment) -> None:
    mcp.start("git")
    status = mcp.act(call("git_status", repo_path="/home/user/repo"))
    assert "modified:   intervals/merge.py" in text(status.observation)
    log = text(mcp.act(call("git_log", repo_path="/home/user/repo")).observation)
    assert "Say how to run the tests" in log and "Add interval merging" in log
    mcp.act(call("git_add", repo_path="/home/user/repo", files=["intervals/merge.py"]))
    committed = mcp.act(call("git_commit", repo_path="/home/user/repo", message="Merge touching"))
    assert "Changes committed successfully" in text(committed.observation)


@_needs("filesystem")
def test_filesystem_server_reads_and_writes_its_folder(mcp: McpEnvironment) -> None:
    mcp.start("filesystem")
    prices = mcp.act(call("read_text_file", path="/home/user/files/data/prices.csv"))
    assert "blender,89.50" in text(prices.observation)
    mcp.act(call("write_file", path="/home/user/files/notes/new.txt", content="buy a blender"))
    again = mcp.act(call("read_text_file", path="/home/user/files/notes/new.txt"))
    assert text(again.observation) == "buy a blender"


@_needs("memory")
def test_memory_server_keeps_the_graph(mcp: McpEnvironment) -> None:
    mcp.start("memory")
    alice = {"name": "Alice", "entityType": "person", "observations": ["engineer at Acme"]}
    mcp.act(call("create_entities", entities=[alice]))
    graph = mcp.act(call("read_graph"))
    assert result(graph.observation)["structuredContent"] == {"entities": [alice], "relations": []}


@_needs("time")
def test_a_killed_server_is_reported(mcp: McpEnvironment) -> None:
    mcp.start("time")
    uid, _ = sandbox_of(mcp)
    for proc in processes(uid):
        if proc.namespace_init:
            os.kill(proc.pid, signal.SIGKILL)
    with pytest.raises(LiveEnvironmentError, match="stopped answering"):
        mcp.act(call("get_current_time", timezone="UTC"))


@_needs("git")
def test_close_leaves_nothing(mcp: McpEnvironment) -> None:
    mcp.start("git")
    uid, folder = sandbox_of(mcp)
    mcp.close()
    assert leftovers(uid, folder) == []


def test_unknown_task_is_refused(mcp: McpEnvironment) -> None:
    with pytest.raises(UnknownNameError, match="filesystem"):
        mcp.start("weather")
