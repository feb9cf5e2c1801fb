"""`awp mcp serve`: the simulator as an MCP server (a mirror of tools, or the world model's own)."""

from __future__ import annotations

from enum import StrEnum
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any

import typer

from app.context import build_context

mcp_app = typer.Typer(help="The simulator as an MCP server.", no_args_is_help=True)


class Transport(StrEnum):
    """How MCP clients reach the server."""

    STDIO = "stdio"
    HTTP = "http"


@mcp_app.command()
def serve(
    tools: Annotated[
        Path | None, typer.Option(help="JSON file of tool definitions (a list or tools/list).")
    ] = None,
    mirror: Annotated[
        str | None,
        typer.Option(help="A real MCP server's command: started in the sandbox, its tools copied."),
    ] = None,
    world_model_tools: Annotated[
        bool,
        typer.Option(help="Serve the world model itself: simulate_step, many_futures, score."),
    ] = False,
    fixtures: Annotated[
        Path | None, typer.Option(help="JSON list of pinned answers {tool, arguments?, result}.")
    ] = None,
    allow: Annotated[
        list[str] | None,
        typer.Option(
            help="A tool the mirrored server answers for real; repeat. Default: the tools it "
            "marks read-only."
        ),
    ] = None,
    real: Annotated[
        bool, typer.Option(help="Let the mirrored server answer allowed tools at all.")
    ] = True,
    record: Annotated[
        bool, typer.Option(help="Answer repeats of earlier real calls from their record.")
    ] = True,
    shadow: Annotated[
        bool, typer.Option(help="Also let the world model predict calls others answered.")
    ] = False,
    task: Annotated[str | None, typer.Option(help="The agent's task, told to the world.")] = None,
    engine: Annotated[str | None, typer.Option(help="The world model's engine.")] = None,
    model: Annotated[str | None, typer.Option(help="The world model's model id.")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")] = None,
    max_new_tokens: Annotated[
        int | None, typer.Option(help="World-model completion budget.", min=1)
    ] = None,
    transport: Annotated[Transport, typer.Option(help="stdio or http.")] = Transport.STDIO,
    host: Annotated[str, typer.Option(help="Address to listen on (http).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (http).")] = 8002,
) -> None:
    """Serve simulated MCP tools over stdio or streamable HTTP (`http://HOST:PORT/mcp`)."""
    from backend.errors import BadInputError
    from backend.integrations import mcp_definitions as definitions
    from backend.integrations import mcp_mirror as mirrors
    from backend.integrations.mcp_server import (
        ToolCaller,
        build_server,
        serve_http,
        serve_stdio,
    )
    from backend.integrations.world_tools import TOOLS, WorldModelTools
    from backend.spec import Purpose

    chosen = sum((tools is not None, mirror is not None, world_model_tools))
    if chosen != 1:
        raise BadInputError(
            "Give exactly one of --tools FILE, --mirror COMMAND, --world-model-tools."
        )
    version = metadata.version("agentworld-playground")
    with build_context(max_new_tokens=max_new_tokens) as context:
        simulator = context.simulator(
            context.world_spec(Purpose.INTEGRATION, engine=engine, model=model, base_url=base_url)
        )
        params = context.settings.sampling()
        served: list[dict[str, Any]]
        call: ToolCaller
        real_server = None
        try:
            if world_model_tools:
                world = WorldModelTools(simulator, context.sessions, params)
                served, call = TOOLS, world.call
            else:
                if mirror is not None:
                    real_server, served = mirrors.start_mirrored(
                        mirror, context.settings.live_config()
                    )
                else:
                    served = definitions.load_tools(Path(str(tools)))
                names = {str(tool["name"]) for tool in served}
                unknown = sorted(set(allow or ()) - names)
                if unknown:
                    raise BadInputError(f"--allow names no served tool: {', '.join(unknown)}.")
                the_mirror = mirrors.Mirror(
                    tools=served,
                    simulator=simulator,
                    recorder=context.sessions,
                    params=params,
                    fixtures=definitions.load_fixtures(fixtures) if fixtures else (),
                    record=context.tool_calls if record else None,
                    real=real_server if real else None,
                    allowed=frozenset(allow) if allow else definitions.read_only(served),
                    scenario=mirrors.Scenario(task=task),
                    shadow=shadow,
                )
                served, call = the_mirror.tools, the_mirror.call
            server = build_server("agentworld-playground", version, served, call)
            if transport is Transport.HTTP:
                serve_http(server, host, port)
            else:
                serve_stdio(server)
        finally:
            if real_server is not None:
                real_server.close()


def register(cli: typer.Typer) -> None:
    """Mount `awp mcp`."""
    cli.add_typer(mcp_app, name="mcp")
