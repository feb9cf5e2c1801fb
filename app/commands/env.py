"""`awp env serve`: the world-model environment as an OpenEnv server (what TRL trains against).

With `--workers N` uvicorn runs N processes behind the one port, each with its own world model
client, database pool and sessions (`--max-sessions` is shared out between them): a WebSocket
session lives on the worker that accepted it, and an HTTP session on the worker its
connection reached, so HTTP clients keep their connection open between requests (as httpx,
requests' sessions and aiohttp do).
"""

from __future__ import annotations

import json
import math
import os
from typing import Annotated, Any

import typer

env_app = typer.Typer(help="The world-model environment for RL frameworks.", no_args_is_help=True)

WORKER_OPTIONS = "AWP_ENV_SERVE_WORKER"
"""Environment variable that hands a worker process the options it builds its app from."""


@env_app.command()
def serve(
    domain: Annotated[str, typer.Option(help="The episodes' domain.")],
    engine: Annotated[str | None, typer.Option(help="The world model's engine.")] = None,
    model: Annotated[str | None, typer.Option(help="The world model's model id.")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")] = None,
    tasks: Annotated[
        str, typer.Option(help="`bundled`, `live`, `blank`, or a JSONL file of starts.")
    ] = "bundled",
    reward: Annotated[
        str, typer.Option(help="Reward model: reference, task_judge or live.")
    ] = "reference",
    judge: Annotated[str | None, typer.Option(help="Engine of the task_judge reward.")] = None,
    env: Annotated[str, typer.Option(help="sim, live, shadow or hybrid.")] = "sim",
    max_steps: Annotated[int, typer.Option(help="Steps before truncation.", min=1)] = 10,
    max_sessions: Annotated[
        int, typer.Option(help="Sessions at once, HTTP and WebSocket together.", min=1)
    ] = 64,
    idle_timeout: Annotated[
        float | None,
        typer.Option(
            help="Close a session idle this many seconds (AWP_ENV_IDLE_TIMEOUT_S).", min=1
        ),
    ] = None,
    max_new_tokens: Annotated[
        int | None, typer.Option(help="World-model completion budget.", min=1)
    ] = None,
    record: Annotated[bool, typer.Option(help="Store episodes as sessions.")] = True,
    workers: Annotated[int, typer.Option(help="Server processes behind the port.", min=1)] = 1,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8001,
) -> None:
    """Serve the world-model environment with the OpenEnv SDK (reset/step/state, WebSockets).

    Beyond loopback it needs AWP_ENV_TOKEN, which every client then sends as a bearer token.
    """
    import uvicorn

    options = {
        "domain": domain,
        "engine": engine,
        "model": model,
        "base_url": base_url,
        "tasks": tasks,
        "reward": reward,
        "judge": judge,
        "env": env,
        "max_steps": max_steps,
        "max_sessions": math.ceil(max_sessions / workers),
        "idle_timeout": idle_timeout,
        "max_new_tokens": max_new_tokens,
        "record": record,
        "host": host,
    }
    if workers == 1:
        app, close = build_app(options)
        try:
            uvicorn.run(app, host=host, port=port, log_level="warning")
        finally:
            close()
        return
    build_app(options)[1]()  # refuse bad options here, once, before any worker starts
    os.environ[WORKER_OPTIONS] = json.dumps(options)
    uvicorn.run(
        "app.commands.env:worker_app",
        factory=True,
        workers=workers,
        host=host,
        port=port,
        log_level="warning",
    )


def build_app(options: dict[str, Any], announce: bool = True) -> tuple[Any, Any]:
    """The OpenEnv app for `options` (those of `serve`), and what closes its context.

    `announce` prints which limits bound its live sandboxes (once per server, not per worker).

    Raises:
        BadInputError: a bad option, or listening beyond loopback without AWP_ENV_TOKEN.
    """
    from app.commands.live import say_limits
    from app.gym import env_options, world_parts
    from app.openenv_env import build_server
    from app.openenv_service import check_exposure
    from backend.envs.sim.episode import backing_named
    from backend.envs.sim.tasks import episode_specs
    from backend.envs.sim.world import WorldEnv

    parts = world_parts(
        options["engine"],
        options["model"],
        options["reward"],
        options["judge"],
        options["max_new_tokens"],
        options["base_url"],
    )
    try:
        settings = parts.settings
        token = settings.env_token.get_secret_value()
        check_exposure(options["host"], token)
        env = env_options(
            settings,
            backing_named(options["env"]),
            options["max_steps"],
            options["record"],
            parts.context.live_pool,
        )
        if options["env"] != "sim" and announce:
            say_limits(settings)
        specs = episode_specs(options["domain"], options["tasks"])
        stores = parts.context.sessions, parts.context.trajectories  # used only when recording
        app = build_server(
            lambda: WorldEnv(parts.simulator, parts.reward, env, *stores),
            specs,
            options["max_sessions"],
            options["idle_timeout"] or settings.env_idle_timeout_s,
            token,
        )
    except BaseException:
        parts.context.close()
        raise
    return app, parts.context.close


def worker_app() -> Any:
    """A worker process's app (uvicorn's factory), from the options its parent handed down."""
    return build_app(json.loads(os.environ[WORKER_OPTIONS]), announce=False)[0]


def register(cli: typer.Typer) -> None:
    """Mount `awp env`."""
    cli.add_typer(env_app, name="env")
