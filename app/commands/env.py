"""`awp env serve`: the world-model environment as an OpenEnv server (what TRL trains against)."""

from __future__ import annotations

from typing import Annotated

import typer

env_app = typer.Typer(help="The world-model environment for RL frameworks.", no_args_is_help=True)


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
    env: Annotated[str, typer.Option(help="sim, live or shadow.")] = "sim",
    max_steps: Annotated[int, typer.Option(help="Steps before truncation.", min=1)] = 10,
    max_sessions: Annotated[int, typer.Option(help="WebSocket sessions at once.", min=1)] = 16,
    max_new_tokens: Annotated[
        int | None, typer.Option(help="World-model completion budget.", min=1)
    ] = None,
    record: Annotated[bool, typer.Option(help="Store episodes as sessions.")] = True,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8001,
) -> None:
    """Serve the world-model environment with the OpenEnv SDK (reset/step/state, WebSockets)."""
    import uvicorn

    from app.gym import env_options, world_parts
    from app.openenv_env import build_server
    from backend.envs.sim.episode import backing_named
    from backend.envs.sim.tasks import episode_specs
    from backend.envs.sim.world import WorldEnv

    parts = world_parts(engine, model, reward, judge, max_new_tokens, base_url)
    try:
        options = env_options(parts.settings, backing_named(env), max_steps, record)
        specs = episode_specs(domain, tasks)
        recorder = parts.context.sessions if record else None
        app = build_server(
            lambda: WorldEnv(parts.simulator, parts.reward, options, recorder), specs, max_sessions
        )
        uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        parts.context.close()


def register(cli: typer.Typer) -> None:
    """Mount `awp env`."""
    cli.add_typer(env_app, name="env")
