"""Live mcp environment: real MCP servers over stdio, each inside the session's sandbox.

The `mcp` SDK is asynchronous; an environment keeps a private event loop on its own thread, and
one task on it holds every server connection open (anyio scopes must close in the task that
opened them), so the public API stays synchronous. Servers are started through the sandbox
prefix and never see the host's environment variables (bwrap clears them).

Observations are the raw `tools/call` result as the server sent it, in JSON: `content`,
`structuredContent` when the server gives one, and `isError`. A call the server answers with a
JSON-RPC error instead (an unknown tool, bad arguments for some servers, a timeout) becomes
`{"error": {"code": ..., "message": ...}}`, the error object a real server sends.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
from contextlib import AsyncExitStack
from dataclasses import replace
from importlib import metadata
from typing import Any, TextIO

from backend.domains.base import PromptContext
from backend.domains.tools import parse_tool_call
from backend.envs.live.base import LIVE, LiveConfig, LiveKind, LiveStep, LiveTask
from backend.envs.live.checks import run_check
from backend.envs.live.host import HOST_PATH, missing_sandbox, version
from backend.envs.live.mcp_servers import NODE_ADDRESS_SPACE_MB, SERVER_SETS, Server, ServerSet
from backend.envs.live.runtime import node_packages
from backend.envs.live.sandbox import HOME, Sandbox
from backend.errors import LiveEnvironmentError, UnknownNameError

DEFAULT_TASK = "time"
START_TIMEOUT_S = 30.0
_LOG_TAIL = 2000


def _jsonable(model: Any) -> dict[str, Any]:
    data = model.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude_none=True)
    return {key: value for key, value in data.items() if not key.startswith("_")}


class McpConnections:
    """The event-loop thread and the task that holds the sessions of one server set.

    Public for the MCP mirror (`backend.integrations.mcp_mirror`), whose real server is a
    server set of one started the same way.
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="live-mcp", daemon=True)
        self.thread.start()
        self.sessions: dict[str, Any] = {}  # tool name -> ClientSession
        self.tools: list[dict[str, Any]] = []
        self.stop: asyncio.Event | None = None
        self.held: concurrent.futures.Future[None] | None = None

    def call(self, coroutine: Any, timeout_s: float) -> Any:
        """Run a coroutine on the loop and wait for its result."""
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result(timeout=timeout_s)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise

    def open(self, sandbox: Sandbox, servers: tuple[Server, ...], logs: list[TextIO]) -> None:
        """Start the servers, initialise each session and list its tools."""
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()

        async def hold() -> None:
            from mcp import ClientSession, StdioServerParameters
            from mcp.client.stdio import stdio_client

            self.stop = asyncio.Event()
            try:
                async with AsyncExitStack() as stack:
                    for server, log in zip(servers, logs, strict=True):
                        argv = sandbox.command(
                            server.argv(),
                            cwd=HOME,
                            env=server.environment(sandbox.config.memory_mb),
                            address_space_mb=NODE_ADDRESS_SPACE_MB if server.node else 0,
                        )
                        params = StdioServerParameters(
                            command=argv[0], args=argv[1:], env={"PATH": HOST_PATH}
                        )
                        streams = await stack.enter_async_context(stdio_client(params, log))
                        session = await stack.enter_async_context(ClientSession(*streams))
                        await session.initialize()
                        for tool in (await session.list_tools()).tools:
                            if tool.name in self.sessions:
                                raise LiveEnvironmentError(f"Two servers offer {tool.name!r}.")
                            self.sessions[tool.name] = session
                            self.tools.append(_jsonable(tool))
                    ready.set_result(None)
                    await self.stop.wait()
            except BaseException as exc:
                if not ready.done():
                    ready.set_exception(exc)
                raise

        self.held = asyncio.run_coroutine_threadsafe(hold(), self.loop)
        ready.result(timeout=START_TIMEOUT_S)

    def close(self) -> None:
        """Let the holding task close every session, then stop the loop."""
        if self.stop is not None and self.held is not None:
            self.loop.call_soon_threadsafe(self.stop.set)
            concurrent.futures.wait([self.held], timeout=15)  # its outcome changes nothing now
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=15)
        self.loop.close()


class McpEnvironment:
    """A set of real MCP servers (a task) in one sandbox, called one tool at a time."""

    domain = "mcp"

    def __init__(self, config: LiveConfig) -> None:
        self.config = config
        self._sandbox: Sandbox | None = None
        self._connections: McpConnections | None = None
        self._set: ServerSet = SERVER_SETS[DEFAULT_TASK]
        self._logs: list[TextIO] = []

    @property
    def version(self) -> str:
        """The SDK, the servers of the current task and the sandbox, with versions."""
        parts = [f"mcp {_package_version('mcp')}", *(s.version() for s in self._set.servers)]
        if any(server.node for server in self._set.servers):
            parts.append(version("node"))
        return "; ".join([*parts, version("bwrap", "bubblewrap")])

    @property
    def task(self) -> LiveTask:
        """The server set (task) in use."""
        return self._set.task

    def start(self, task: str | None = None) -> str:
        """Start the task's servers in a fresh sandbox; returns the list of their tools."""
        name = task or DEFAULT_TASK
        if name not in SERVER_SETS:
            names = ", ".join(SERVER_SETS)
            raise UnknownNameError(f"Unknown mcp task {name!r}. Valid: {names}.")
        return self.start_set(SERVER_SETS[name])

    def start_set(self, server_set: ServerSet) -> str:
        """Start a server set (a task's, or the MCP mirror's own) in a fresh sandbox.

        Returns:
            The list of the servers' tools, as `tools/list` returns them.

        Raises:
            LiveEnvironmentError: a server cannot start, or did not.
        """
        name = server_set.task.name
        missing = "; ".join(filter(None, (server.needs() for server in server_set.servers)))
        if missing:
            raise LiveEnvironmentError(f"The mcp task {name!r} cannot start: {missing}.")
        self.close()
        self._set = server_set
        sandbox = self._sandbox = Sandbox(self.config, read_only=[node_packages()]).open()
        try:
            self._set.prepare(sandbox, self.config.action_timeout_s)
            assert sandbox.folder is not None
            logs = sandbox.folder / "logs"
            logs.mkdir(mode=0o700)
            self._logs = [(logs / f"{s.name}.log").open("w+") for s in self._set.servers]
            self._connections = McpConnections()
            self._connections.open(sandbox, self._set.servers, self._logs)
        except BaseException as exc:
            said = self._log_tail()
            self.close()
            if isinstance(exc, LiveEnvironmentError):
                raise
            raise LiveEnvironmentError(
                f"The MCP server(s) of {name!r} did not start: {_leaf(exc)}. {said}".strip()
            ) from exc
        return self.observe()

    def _log_tail(self) -> str:
        text = ""
        for log in self._logs:
            log.flush()
            log.seek(0)
            text += log.read()
        return f"Server output: {text[-_LOG_TAIL:]}" if text.strip() else ""

    def observe(self) -> str:
        """The servers' tools, as `tools/list` returns them."""
        return json.dumps({"tools": self._open().tools}, ensure_ascii=False)

    def _open(self) -> McpConnections:
        if self._connections is None:
            raise LiveEnvironmentError("The mcp environment is not started: start it first.")
        return self._connections

    def act(self, action: str) -> LiveStep:
        """Call one tool; the server's result or error is the observation.

        After every call that gets an answer, an error included (an unknown tool, the server's
        refusal), the task's check runs on the servers' state (see `_checked`): whatever the
        call did, the state it left is what a task's success is.

        Raises:
            BadActionError: the action is not a tool call.
            LiveEnvironmentError: the server is gone (it exited or was killed by a limit).
        """
        from mcp.shared.exceptions import MCPError
        from mcp_types.jsonrpc import CONNECTION_CLOSED

        call = parse_tool_call(action)
        connections = self._open()
        session = connections.sessions.get(call.name)
        if session is None:
            error = {"code": -32602, "message": f"Unknown tool: {call.name}"}
            return self._checked(LiveStep(json.dumps({"error": error}), info={"error": True}))
        timeout = self.config.action_timeout_s
        try:
            result = connections.call(
                session.call_tool(call.name, call.arguments, read_timeout_seconds=timeout),
                timeout + 5,
            )
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED:  # the server's own answer (or its timeout)
                error = {"code": exc.code, "message": exc.message}
                return self._checked(LiveStep(json.dumps({"error": error}), info={"error": True}))
            failure: BaseException = exc
        except (concurrent.futures.TimeoutError, ConnectionError, OSError, RuntimeError) as exc:
            failure = exc
        else:
            body = _jsonable(result)
            body.setdefault("isError", False)
            observation = json.dumps(body, ensure_ascii=False)
            return self._checked(LiveStep(observation=observation, info={"error": body["isError"]}))
        raise LiveEnvironmentError(
            f"The MCP server stopped answering ({_leaf(failure)}). {self._log_tail()}".strip()
        )

    def _checked(self, step: LiveStep) -> LiveStep:
        """The step, with the task's check run on the servers' state after it.

        MCP has no end action, so the check runs after every call: reward 1 and the end of
        the episode once it passes, else reward 0.
        """
        check = self._set.task.check
        if check is None or self._sandbox is None:
            return step
        result = run_check(self._sandbox, check, timeout_s=self.config.action_timeout_s)
        info = {**step.info, "check": {"passed": result.passed, "output": result.output}}
        return replace(step, reward=float(result.passed), done=result.passed, info=info)

    def prompt_context(self) -> PromptContext:
        """The servers' tool definitions (MCP `inputSchema` form) and the task's goal."""
        tools = self._connections.tools if self._connections is not None else None
        return PromptContext(tools=tools, task=self._set.task.goal or None)

    def close(self) -> None:
        """Stop the servers, the loop and the sandbox; remove every file."""
        if self._sandbox is not None:
            self._sandbox.stop()  # namespaces first, so each server's bwrap exits and is reaped
        if self._connections is not None:
            self._connections.close()
            self._connections = None
        for log in self._logs:
            log.close()
        self._logs = []
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None


def _leaf(exc: BaseException) -> str:
    """The first real error inside (anyio wraps errors in exception groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


def _package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "(absent)"


def _tasks() -> list[LiveTask]:
    return [server_set.task for server_set in SERVER_SETS.values()]


def _missing() -> str:
    sandbox = missing_sandbox()
    if sandbox:
        return sandbox
    return "" if _package_version("mcp") != "(absent)" else "install the PyPI package mcp"


MCP = LIVE.register("mcp", LiveKind("mcp", McpEnvironment, _tasks, _missing))
